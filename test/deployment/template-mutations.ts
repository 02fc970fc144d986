/**
 * Defects one edit of the infrastructure code would make, applied to the synthesized template: the
 * mutation tests deploy each and expect the scenario step it breaks to fail.
 */
import { type CfnTemplate, logicalIdAt } from '../support/aws/deployed-stack.ts';

type Json = Record<string, unknown>;

function propertiesAt(template: CfnTemplate, path: string): Json {
  const properties = template.Resources[logicalIdAt(template, path)]?.Properties;
  if (!properties) throw new Error(`${path} has no properties`);
  return properties;
}

/**
 * Takes `action` out of every statement of the policy at `policyPath` that names the resource at
 * `resourcePath` (as `Fn::GetAtt [id, Arn]`); throws when no statement had it.
 */
export function dropAction(
  template: CfnTemplate,
  policyPath: string,
  action: string,
  resourcePath: string,
): void {
  const arn = JSON.stringify({ 'Fn::GetAtt': [logicalIdAt(template, resourcePath), 'Arn'] });
  const document = propertiesAt(template, policyPath).PolicyDocument as { Statement: Json[] };
  let dropped = 0;
  for (const statement of document.Statement) {
    const actions = [statement.Action].flat() as string[];
    if (!JSON.stringify(statement.Resource).includes(arn) || !actions.includes(action)) continue;
    statement.Action = actions.filter((a) => a !== action);
    dropped += 1;
  }
  if (dropped === 0) throw new Error(`${policyPath} grants no ${action} on ${resourcePath}`);
}

/** Removes environment variable `name` from the function at `functionPath`. */
export function dropEnvironmentVariable(template: CfnTemplate, functionPath: string, name: string): void {
  const variables = (propertiesAt(template, functionPath).Environment as { Variables: Json }).Variables;
  if (!(name in variables)) throw new Error(`${functionPath} has no ${name}`);
  delete variables[name];
}

/** Replaces the event pattern of the rule at `rulePath` with what `change` makes of it. */
export function changeEventPattern(
  template: CfnTemplate,
  rulePath: string,
  change: (pattern: Json) => Json,
): void {
  const properties = propertiesAt(template, rulePath);
  properties.EventPattern = change(properties.EventPattern as Json);
}

/** Removes `FunctionResponseTypes` (ReportBatchItemFailures) from the mapping at `mappingPath`. */
export function dropFunctionResponseTypes(template: CfnTemplate, mappingPath: string): void {
  const properties = propertiesAt(template, mappingPath);
  if (!properties.FunctionResponseTypes) throw new Error(`${mappingPath} reports no batch item failures`);
  delete properties.FunctionResponseTypes;
}
