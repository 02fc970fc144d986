/**
 * DaemonSet validation (apps/v1 and everynode.dev/v1) through lib/core's validateDaemonSet, its
 * violations worded as apimachinery field errors so 422 answers read like the real server's. The
 * everynode.dev/v1 CRD keeps the pod template loosely (x-kubernetes-preserve-unknown-fields), so
 * the template rules a real server only checks on core types (tolerations, volumes, annotations)
 * are not enforced on it, nor the safe-rollout and node-sizing settings beyond their schema:
 * everynode reports them as an invalid spec instead.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';
import { type FieldViolation, validateDaemonSet } from '../../core/validation.ts';
import type { FieldError } from './api-error.ts';
import { nodeSizingSchemaErrors } from './node-sizing-schema.ts';
import type { ResourceKey } from './resources.ts';
import type { KubeObject } from './store-types.ts';

/**
 * Fields the everynode.dev/v1 CRD's schema leaves unchecked: template rules of core types, the
 * safe-rollout settings its schema types only loosely (int-or-string, a plain string key), and the
 * node-sizing rules, whose schema types their quantities as int-or-string and their percents as
 * strings: a container the template lacks, a malformed quantity or `min` above `max` pass the API
 * server, and everynode reports them (ReplicaFailure, InvalidSpec). Their JSON types are the
 * schema's, checked as the API server checks them (node-sizing-schema.ts).
 */
const LOOSE_IN_CRD = [
  'spec.template.spec.tolerations',
  'spec.template.spec.volumes',
  'spec.template.metadata.annotations',
  'spec.updateStrategy.rollingUpdate.steps',
  'spec.updateStrategy.rollingUpdate.topologyKey',
  'spec.updateStrategy.rollingUpdate.health.maxFailedNodes',
  'spec.nodeSizing',
];

/** Whether `field` is `prefix` or inside it. */
function within(field: string, prefix: string): boolean {
  return field === prefix || field.startsWith(`${prefix}.`) || field.startsWith(`${prefix}[`);
}

/** A Go string literal, as %q and %#v print one. */
function goQuote(value: unknown): string {
  return JSON.stringify(typeof value === 'string' ? value : '');
}

/** A toleration as `%#v` prints the internal core.Toleration (a set pointer's address is made up). */
function goToleration(t: Readonly<Record<string, unknown>>): string {
  const seconds = typeof t.tolerationSeconds === 'number' ? '(*int64)(0xc000000000)' : '(*int64)(nil)';
  return `core.Toleration{Key:${goQuote(t.key)}, Operator:${goQuote(t.operator)}, Value:${goQuote(t.value)}, Effect:${goQuote(t.effect)}, TolerationSeconds:${seconds}}`;
}

/** How upstream prints a value inside an error message. */
function show(value: unknown): string {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value) ?? 'null';
}

/** The message field.Error.ErrorBody() gives a violation of each type. */
function messageOf(v: Readonly<FieldViolation>): string {
  switch (v.type) {
    case 'FieldValueRequired':
      return v.message === 'Required value' || v.message === ''
        ? 'Required value'
        : `Required value: ${v.message}`;
    case 'FieldValueInvalid':
      if (
        /\.tolerations\[\d+\]\.operator$/.test(v.field) &&
        typeof v.value === 'object' &&
        v.value !== null
      ) {
        return `Invalid value: ${goToleration(v.value as Record<string, unknown>)}: ${v.message}`;
      }
      return `Invalid value: ${show(v.value)}: ${v.message}`;
    case 'FieldValueNotSupported':
      return `Unsupported value: ${show(v.value)}: ${v.message}`;
    case 'FieldValueForbidden':
      return `Forbidden: ${v.message}`;
    case 'FieldValueDuplicate':
      return `Duplicate value: ${show(v.value)}`;
    case 'FieldValueTooLong':
      return `Too long: ${v.message}`;
  }
}

/**
 * The errors of a DaemonSet of resource `key` (and of its update when `old` is given). Metadata is
 * left to the store's own ObjectMeta validation, which knows each resource's name rule.
 */
export function daemonSetErrors(
  key: ResourceKey,
  obj: Readonly<KubeObject>,
  old: Readonly<KubeObject> | undefined,
): FieldError[] {
  const violations = validateDaemonSet(
    obj as unknown as V1DaemonSet,
    old as unknown as V1DaemonSet | undefined,
  );
  const crd = key === 'everynode.dev/daemonsets';
  return [
    ...violations
      .filter((v) => !v.field.startsWith('metadata.'))
      .filter((v) => !crd || !LOOSE_IN_CRD.some((f) => within(v.field, f)))
      .map((v) => ({ type: v.type, field: v.field, message: messageOf(v) })),
    ...(crd ? nodeSizingSchemaErrors(obj.spec) : []),
  ];
}
