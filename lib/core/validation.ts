/**
 * Validation of DaemonSet specs as apps/v1 does it: upstream pkg/apis/apps/validation
 * ValidateDaemonSet / ValidateDaemonSetUpdate / ValidateDaemonSetSpec, the apps/v1 strategy's
 * immutable selector (pkg/registry/apps/daemonset/strategy.go ValidateUpdate), and everynode's
 * extension fields. Used by the simulated API server for 422s and by the reconciler for an
 * invalid-spec condition and Warning event.
 */
import type { DaemonSet } from './daemon-set.ts';
import { defaultDaemonSet } from './defaults.ts';
import { extensionViolations } from './extensions.ts';
import { type FieldViolation, invalid, nonNegative, required } from './field-violation.ts';
import { inPlaceSettingViolations } from './in-place/in-place-setting.ts';
import {
  isEmptyLabelSelector,
  labelSelectorMatches,
  labelSelectorViolations,
  labelViolations,
} from './label-selector.ts';
import { nodeReadinessViolations } from './node-gates/gate-declaration.ts';
import { nodeSizingViolations } from './node-sizing/node-sizing.ts';
import { dns1123SubdomainErrors } from './object-names.ts';
import { safeRolloutViolations } from './safe-rollout/rollout-spec.ts';
import { podTemplateViolations } from './validation-pod-template.ts';
import { updateStrategyViolations } from './validation-update-strategy.ts';

export type { FieldViolation, FieldViolationType } from './field-violation.ts';

/**
 * Every violation of `ds` (after apps/v1 defaulting, as the API server validates defaulted
 * objects), or of the update from `old` when given; empty when valid. Checks: name (DNS-1123
 * subdomain) and namespace present, labels; selector present, valid, non-empty and matching the
 * template labels; template (what a pod create would refuse: labels, annotations, volumes,
 * containers with unique DNS-1123 names and images, tolerations; and restartPolicy Always, no
 * activeDeadlineSeconds); updateStrategy; minReadySeconds and revisionHistoryLimit ≥ 0;
 * extension fields, the safe-rollout, in-place and node-sizing settings and the node readiness gate (an invalid
 * gate makes the DaemonSet invalid, so it gets the invalid-spec condition and Warning event and
 * taints no node); on update, an unchanged selector, name and namespace.
 */
export function validateDaemonSet(ds: Readonly<DaemonSet>, old?: Readonly<DaemonSet>): FieldViolation[] {
  const defaulted = defaultDaemonSet(ds);
  return [
    ...metadataViolations(defaulted),
    ...specViolations(defaulted),
    ...extensionViolations(defaulted),
    ...nodeReadinessViolations(defaulted),
    ...safeRolloutViolations(defaulted),
    ...inPlaceSettingViolations(defaulted),
    ...nodeSizingViolations(defaulted),
    ...(old === undefined ? [] : updateViolations(defaulted, old)),
  ];
}

function metadataViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  const name = ds.metadata?.name ?? '';
  if (name === '') violations.push(required('metadata.name', 'name or generateName is required'));
  else
    for (const message of dns1123SubdomainErrors(name))
      violations.push(invalid('metadata.name', name, message));
  if ((ds.metadata?.namespace ?? '') === '') violations.push(required('metadata.namespace'));
  for (const [key, value] of Object.entries(ds.metadata?.labels ?? {})) {
    violations.push(...labelViolations(key, value, 'metadata.labels'));
  }
  return violations;
}

function specViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  const spec = ds.spec;
  if (spec === undefined || spec === null) return [required('spec')];
  const violations: FieldViolation[] = [];
  const selector = spec.selector;
  if (selector === undefined || selector === null) violations.push(required('spec.selector'));
  else {
    violations.push(...labelSelectorViolations(selector, 'spec.selector'));
    if (isEmptyLabelSelector(selector)) {
      violations.push(invalid('spec.selector', selector, 'empty selector is invalid for daemonset'));
    } else if (!labelSelectorMatches(selector, spec.template?.metadata?.labels ?? {})) {
      violations.push(
        invalid(
          'spec.template.metadata.labels',
          spec.template?.metadata?.labels,
          '`selector` does not match template `labels`',
        ),
      );
    }
  }
  violations.push(...podTemplateViolations(spec.template));
  violations.push(...nonNegative('spec.minReadySeconds', spec.minReadySeconds));
  violations.push(...updateStrategyViolations(spec.updateStrategy));
  violations.push(...nonNegative('spec.revisionHistoryLimit', spec.revisionHistoryLimit));
  return violations;
}

/** ValidateObjectMetaUpdate (name, namespace) and the apps/v1 immutable selector. */
function updateViolations(ds: Readonly<DaemonSet>, old: Readonly<DaemonSet>): FieldViolation[] {
  const violations: FieldViolation[] = [];
  if ((ds.metadata?.name ?? '') !== (old.metadata?.name ?? '')) {
    violations.push(invalid('metadata.name', ds.metadata?.name, 'field is immutable'));
  }
  if ((ds.metadata?.namespace ?? '') !== (old.metadata?.namespace ?? '')) {
    violations.push(invalid('metadata.namespace', ds.metadata?.namespace, 'field is immutable'));
  }
  if (canonicalJson(ds.spec?.selector) !== canonicalJson(old.spec?.selector)) {
    violations.push(invalid('spec.selector', ds.spec?.selector, 'field is immutable'));
  }
  return violations;
}

/** JSON with object keys sorted, so equal selectors compare equal whatever their key order. */
function canonicalJson(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    typeof v === 'object' && v !== null && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}
