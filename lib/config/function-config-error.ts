/**
 * The error a function throws when its configuration (the environment the CDK stack sets) is
 * unusable.
 */
import { EverynodeError, type EverynodeErrorOptions } from '../errors/everynode-error.ts';

/** The configuration is unusable; the function cannot start. Not retryable. */
export class FunctionConfigError extends EverynodeError {
  constructor(message: string, options: EverynodeErrorOptions = {}) {
    super(message, false, options);
  }
}
