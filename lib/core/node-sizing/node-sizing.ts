/**
 * A DaemonSet's node-sizing rules in effect, and why they are invalid. An invalid setting sizes
 * nothing and makes the DaemonSet invalid (its `ReplicaFailure` condition and Warning event), as
 * the other extensions do, so a typo never gives a fleet wrong requests unnoticed.
 */
import type { DaemonSet } from '../daemon-set.ts';
import type { FieldViolation } from '../field-violation.ts';
import type { SizingRule } from './sizing-rule.ts';
import { rawNodeSizing, readNodeSizing } from './sizing-spec.ts';
import { templateViolations } from './sizing-template-checks.ts';

interface Reading {
  readonly rules: readonly SizingRule[];
  readonly violations: readonly FieldViolation[];
}

/** Readings by DaemonSet object: steps plan many pods from one cached, read-only object. */
const readings = new WeakMap<object, Reading>();

function reading(ds: Readonly<DaemonSet>): Reading {
  let found = readings.get(ds);
  if (found === undefined) {
    const { rules, violations } = readNodeSizing(ds);
    const raw = rawNodeSizing(ds);
    const field = raw !== undefined && !('type' in raw) ? raw.field : '';
    const all = [...violations, ...templateViolations(field, rules, ds.spec?.template?.spec)];
    found = { rules: all.length > 0 ? [] : rules, violations: all };
    readings.set(ds, found);
  }
  return found;
}

/** The DaemonSet's sizing rules in effect, in order; none when unset or invalid. */
export function nodeSizingOf(ds: Readonly<DaemonSet>): readonly SizingRule[] {
  return reading(ds).rules;
}

/** Why the DaemonSet's sizing rules are invalid; empty when they are valid or unset. */
export function nodeSizingViolations(ds: Readonly<DaemonSet>): FieldViolation[] {
  return [...reading(ds).violations];
}
