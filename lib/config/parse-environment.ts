/**
 * Reading a function's configuration from its environment: one zod schema per function, one
 * error format for every bad variable.
 */
import * as z from 'zod';
import { FunctionConfigError } from './function-config-error.ts';

/**
 * The variables of `env` that `schema` describes, parsed (coerced, defaulted); throws a
 * FunctionConfigError naming every bad variable, on one line, for the `what` configuration.
 */
export function parseEnvironment<Schema extends z.ZodType>(
  schema: Schema,
  env: Readonly<Record<string, string | undefined>>,
  what: string,
): z.output<Schema> {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    throw new FunctionConfigError(
      `reading the ${what} configuration from the environment: ${z.prettifyError(parsed.error).replaceAll('\n', ' ')}`,
    );
  }
  return parsed.data;
}
