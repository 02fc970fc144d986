/**
 * What `rollout status` adds for a DaemonSet with a safe rollout (docs/design.md, 30. Rollouts that
 * stop themselves), read from the rollout record the controller keeps: where the rollout stands
 * (the step that holds and the domain being rolled), and whether it halted — which ends the command
 * with an error, as kubectl's Deployment status viewer ends on ProgressDeadlineExceeded.
 */
import type { V1DaemonSetCondition } from '@kubernetes/client-node';
import type { DaemonSet } from '../core/daemon-set.ts';
import { PROGRESSING, REASON_ROLLOUT_HALTED } from '../core/progress-conditions.ts';
import { type RolloutRecord, rolloutRecordOf } from '../core/safe-rollout/rollout-record.ts';
import { safeRolloutOf } from '../core/safe-rollout/rollout-spec.ts';
import type { KubeObject } from './plugin-api.ts';
import { isHalted, templateRevisionOf } from './rollout-revision.ts';
import { domainName, stepWords } from './safe-rollout-words.ts';

/** The record, when it is about the DaemonSet's current template (else undefined: it is stale). */
function currentRecord(object: Readonly<KubeObject>): RolloutRecord | undefined {
  const record = rolloutRecordOf(object as unknown as DaemonSet);
  return record?.revision === templateRevisionOf(object) ? record : undefined;
}

/**
 * The halt message when the rollout halted, else undefined. Halted is a record of the current
 * template that halted (Halted, or Reverting after the halt), or the Progressing condition
 * False/RolloutHalted (the status of the observed generation, as kubectl reads a Deployment's
 * ProgressDeadlineExceeded); the message is the record's, else the condition's after its `halted: `.
 */
export function rolloutHaltMessage(object: Readonly<KubeObject>): string | undefined {
  const current = currentRecord(object);
  if (isHalted(current)) return current.haltMessage ?? current.haltReason ?? '';
  const conditions = (object.status as { conditions?: V1DaemonSetCondition[] } | undefined)?.conditions;
  const progressing = conditions?.find((c) => c.type === PROGRESSING);
  if (progressing?.status !== 'False' || progressing.reason !== REASON_ROLLOUT_HALTED) return undefined;
  return (progressing.message ?? '').replace(/^.*? halted: /, '');
}

/**
 * Where a safe rollout of the current template stands while it moves or holds, as `step 2 of 4
 * (pause until resumed), zone a`; '' when the DaemonSet has no safe rollout, its record is stale or
 * missing, or the rollout is past its steps without a topology key.
 */
export function rolloutPosition(object: Readonly<KubeObject>): string {
  const record = currentRecord(object);
  if (record === undefined || (record.phase !== 'Progressing' && record.phase !== 'Paused')) return '';
  const { steps, topologyKey } = safeRolloutOf(object as unknown as DaemonSet);
  const parts: string[] = [];
  const step = record.step === undefined ? undefined : steps?.[record.step];
  if (steps !== undefined && record.step !== undefined && step !== undefined)
    parts.push(`step ${record.step + 1} of ${steps.length} (${stepWords(step)})`);
  if (topologyKey !== undefined && record.domain !== undefined)
    parts.push(domainName(topologyKey, record.domain));
  return parts.join(', ');
}
