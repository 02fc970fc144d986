/**
 * What an EventBridge rule target receives for an event: the event itself as JSON, or the rule
 * target's `Input` (a constant JSON text), `InputPath` (the JSONPath-selected part of the event) or
 * `InputTransformer` (values selected by `InputPathsMap` placed into `InputTemplate`), as described
 * in "Amazon EventBridge input transformation".
 */

/** The input settings of one rule target, as in `AWS::Events::Rule` `Targets`. */
export interface TargetInputSettings {
  readonly Input?: string;
  readonly InputPath?: string;
  readonly InputTransformer?: {
    readonly InputPathsMap?: Readonly<Record<string, string>>;
    readonly InputTemplate: string;
  };
}

/** The rule a target belongs to (for the predefined `aws.events.*` variables). */
export interface InputRule {
  readonly arn: string;
  readonly name: string;
}

/** A target input the harness cannot build (e.g. an `InputPath` that selects nothing). */
export class TargetInputError extends Error {
  override readonly name = 'TargetInputError';
}

/** The value at the JSONPath `path` (`$`, `.name`, `['name']`, `[index]`) of `event`, if any. */
export function selectJsonPath(event: unknown, path: string): unknown {
  if (!path.startsWith('$')) throw new TargetInputError(`JSONPath ${path} does not start with $`);
  const steps = path.slice(1).match(/\.[^.[\]]+|\[\d+\]|\['[^']*'\]|\["[^"]*"\]/g) ?? [];
  if (steps.join('') !== path.slice(1))
    throw new TargetInputError(`the harness cannot read JSONPath ${path}`);
  let value: unknown = event;
  for (const step of steps) {
    const key = step.startsWith('.') ? step.slice(1) : step.slice(1, -1).replace(/^['"]|['"]$/g, '');
    if (value === null || typeof value !== 'object') return undefined;
    value = (value as Record<string, unknown>)[key];
  }
  return value;
}

/** `template` with each `<name>` of `values` replaced: as a JSON value, or inside a string as text. */
function fillTemplate(template: string, values: ReadonlyMap<string, unknown>): string {
  let out = '';
  let inString = false;
  for (let i = 0; i < template.length; i++) {
    const c = template[i] ?? '';
    if (c === '\\' && inString) {
      out += template.slice(i, i + 2);
      i++;
      continue;
    }
    if (c === '"') inString = !inString;
    const placeholder = c === '<' ? /^<([A-Za-z0-9_.-]+)>/.exec(template.slice(i)) : null;
    const name = placeholder?.[1];
    if (placeholder && name !== undefined && values.has(name)) {
      const value = values.get(name);
      if (!inString) out += value === undefined ? 'null' : JSON.stringify(value);
      else if (value !== undefined) {
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        out += JSON.stringify(text).slice(1, -1);
      }
      i += placeholder[0].length - 1;
      continue;
    }
    out += c;
  }
  return out;
}

/**
 * The text the target receives for `event` (an SQS message body as is; a Lambda payload once
 * parsed). Variables whose path selects nothing become `null` outside strings and nothing inside
 * them.
 */
export function targetInputText(
  settings: Readonly<TargetInputSettings>,
  event: Readonly<Record<string, unknown>>,
  rule: Readonly<InputRule>,
): string {
  if (settings.Input !== undefined) return settings.Input;
  if (settings.InputPath !== undefined) {
    const selected = selectJsonPath(event, settings.InputPath);
    if (selected === undefined) throw new TargetInputError(`InputPath ${settings.InputPath} selects nothing`);
    return JSON.stringify(selected);
  }
  const transformer = settings.InputTransformer;
  if (!transformer) return JSON.stringify(event);
  const values = new Map<string, unknown>([
    ['aws.events.rule-arn', rule.arn],
    ['aws.events.rule-name', rule.name],
    ['aws.events.event.ingestion-time', event.time],
    ['aws.events.event', event],
    ['aws.events.event.json', event],
  ]);
  for (const [name, path] of Object.entries(transformer.InputPathsMap ?? {})) {
    values.set(name, selectJsonPath(event, path));
  }
  return fillTemplate(transformer.InputTemplate, values);
}
