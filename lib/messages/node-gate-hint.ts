/**
 * The gate state of a node hint: what the node readiness gate decision reads of a node besides its
 * taints (docs/design.md, 26. Node readiness gates) — the BootstrapOnly released marker and
 * everynode's `everynode.dev/DaemonSetsReady` condition — so that the `node` step decides a node's
 * gates from the relay's hints without a GET, and releasing a node costs its writes alone.
 *
 * Only those two travel, not the node's other annotations nor the reason and message of the
 * kubelet's conditions: the hints stay small. A stale gate state is as safe as stale taints
 * (docs/design.md, 9. Hints, and why a stale hint is safe): the taints and the marker are written
 * in one merge patch guarded by the hinted resourceVersion, so a node that changed since answers
 * 409 Conflict and is read and decided again.
 */
import type { V1Node, V1NodeCondition } from '@kubernetes/client-node';
import * as z from 'zod';
import { DAEMONSETS_READY_CONDITION, GATE_RELEASED_ANNOTATION } from '../core/node-gates/gate-decision.ts';

/**
 * A node's gate state as hinted. Present (even empty) means the sender knew it: each field is
 * absent when the node has none. A hint without it (sent by an older relay) leaves the gate state
 * unknown, and the `node` step reads the node before deciding its gates.
 */
export const nodeGateHintSchema = z.object({
  /** The text of the node's `everynode.dev/node-readiness-released` annotation, when it has one. */
  released: z.string().optional(),
  /** The node's `everynode.dev/DaemonSetsReady` condition, when it has one. */
  condition: z
    .object({
      type: z.string().min(1),
      status: z.string().min(1),
      reason: z.string().optional(),
      message: z.string().optional(),
      lastTransitionTime: z.iso.datetime({ offset: true }).optional(),
    })
    .optional(),
});

/** A node's gate state as hinted. */
export type NodeGateHint = z.infer<typeof nodeGateHintSchema>;

function isoOf(value: unknown): string | undefined {
  if (value instanceof Date) return value.toISOString();
  return typeof value === 'string' && value !== '' ? new Date(value).toISOString() : undefined;
}

function withoutUndefined<T extends object>(value: T): T {
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== undefined)) as T;
}

/** The gate state of `node`: its released marker and its DaemonSetsReady condition, if it has them. */
export function nodeGateHintOf(node: Readonly<V1Node>): NodeGateHint {
  const ours = node.status?.conditions?.find((c) => c.type === DAEMONSETS_READY_CONDITION);
  return withoutUndefined({
    released: node.metadata?.annotations?.[GATE_RELEASED_ANNOTATION],
    condition:
      ours &&
      withoutUndefined({
        type: ours.type,
        status: ours.status,
        reason: ours.reason,
        message: ours.message,
        lastTransitionTime: isoOf(ours.lastTransitionTime),
      }),
  });
}

/**
 * `node` (rebuilt from a hint) with the hinted gate state: the marker as its only annotation, and
 * the hinted condition in place of any DaemonSetsReady condition it had.
 */
export function withNodeGateHint(node: Readonly<V1Node>, hint: Readonly<NodeGateHint>): V1Node {
  const others = (node.status?.conditions ?? []).filter((c) => c.type !== DAEMONSETS_READY_CONDITION);
  let condition: V1NodeCondition | undefined;
  if (hint.condition !== undefined) {
    const { lastTransitionTime, ...rest } = hint.condition;
    condition =
      lastTransitionTime === undefined ? rest : { ...rest, lastTransitionTime: new Date(lastTransitionTime) };
  }
  const conditions = condition === undefined ? others : [...others, condition];
  return {
    ...node,
    metadata: {
      ...node.metadata,
      ...(hint.released !== undefined ? { annotations: { [GATE_RELEASED_ANNOTATION]: hint.released } } : {}),
    },
    status: { ...node.status, ...(conditions.length > 0 ? { conditions } : {}) },
  };
}
