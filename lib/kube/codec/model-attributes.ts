/**
 * The attribute maps of the client-node models the adapter sends and receives, from a table made
 * of client-node's own models (model-attribute-table.ts, generated and checked against them by
 * test/kube/model-attributes.test.ts). client-node's model classes and its ObjectSerializer hold
 * all of its ~720 models, loaded at once; the pipeline needs the few below and what they contain,
 * so its functions load this table instead at cold start.
 */
import { MODEL_ATTRIBUTE_TABLE } from './model-attribute-table.ts';

/** One attribute of a model, as client-node's `getAttributeTypeMap()` gives it. */
export interface ModelAttribute {
  /** The property name on client-node's typed object (`_continue`). */
  readonly name: string;
  /** The JSON name the API server uses (`continue`). */
  readonly baseName: string;
  /** A client-node type string: a model name, `Date`, `string`, `Array<…>`, `{ [key: string]: …; }`. */
  readonly type: string;
  /** The OpenAPI format (`date-time`, `int32`, …), or empty. */
  readonly format: string;
}

/**
 * The models the adapter sends or receives at the top level of a request or answer; the table
 * holds these and every model they contain.
 */
export const MODEL_ROOTS = [
  'CoreV1Event',
  'V1ControllerRevision',
  'V1ControllerRevisionList',
  'V1DaemonSet',
  'V1DaemonSetList',
  'V1DeleteOptions',
  'V1Namespace',
  'V1Node',
  'V1NodeList',
  'V1Pod',
  'V1PodList',
  'V1Status',
] as const;

let table: ReadonlyMap<string, readonly ModelAttribute[]> | undefined;

/** The attributes of the model named `type`, or undefined when `type` names no model of the table. */
export function modelAttributes(type: string): readonly ModelAttribute[] | undefined {
  table ??= new Map(
    Object.entries(
      JSON.parse(MODEL_ATTRIBUTE_TABLE) as Record<string, [string, string, string, string][]>,
    ).map(([model, attributes]) => [
      model,
      attributes.map(([name, baseName, attributeType, format]) => ({
        name,
        baseName,
        type: attributeType,
        format,
      })),
    ]),
  );
  return table.get(type);
}
