/**
 * The types a safe rollout's decision shares with the parts it is made of and with the rolling
 * update that applies it.
 */
import type { DaemonSet } from '../daemon-set.ts';
import type { NodeView } from '../node-view.ts';
import type { RolloutRecord } from './rollout-record.ts';
import type { SafeRollout } from './rollout-spec.ts';

/** How far the rolling update may go on this step. */
export interface RolloutAllowance {
  /** No node may move to the revision: the rollout halted. */
  readonly halted: boolean;
  /** How many more nodes may move to the revision on this step (Infinity: as the budgets allow). */
  readonly maxNewNodes: number;
  /** The nodes the rolling update may touch, in the order it must take them. */
  readonly order: readonly string[];
}

/** An event of the rollout's progress. */
export interface RolloutEvent {
  readonly type: 'Normal' | 'Warning';
  readonly reason:
    | 'RolloutStepComplete'
    | 'RolloutDomainComplete'
    | 'RolloutHalted'
    | 'RolloutRetried'
    | 'RolloutReverted';
  readonly message: string;
}

/** What the decision is made from. */
export interface RolloutProgressInput {
  readonly ds: Readonly<DaemonSet>;
  readonly views: readonly NodeView[];
  readonly currentHash: string;
  readonly settings: SafeRollout;
  /** The record the DaemonSet carries (of any revision). */
  readonly stored: RolloutRecord | undefined;
  readonly now: Date;
}
