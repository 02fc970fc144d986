/**
 * Every trigger the relay builds and every work message the router and the DaemonSet step's fan-out
 * build of it stay within SQS's 256 KiB (and EventBridge's 256 KB per entry), whatever the size of
 * the objects, up to what the API server takes: objects of 1.5 MiB, 256 KiB of annotations, label
 * values of 63 characters and thousands of labels (docs/design.md, 9. Hints, and why a stale hint
 * is safe). Built with the real functions, serialized as they are sent.
 */
import { Logger } from '@aws-lambda-powertools/logger';
import type { V1Node, V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { daemonPodFor } from '../../lib/core/daemon-pod.ts';
import type { DaemonSet } from '../../lib/core/daemon-set.ts';
import {
  DAEMONSETS_READY_CONDITION,
  GATE_RELEASED_ANNOTATION,
} from '../../lib/core/node-gates/gate-decision.ts';
import { nodeViewsFor } from '../../lib/core/node-view.ts';
import { MAX_GATE_CHANGE_KEYS } from '../../lib/messages/trigger.ts';
import { formatWorkMessage, type WorkMessage } from '../../lib/messages/work-message.ts';
import {
  type BusEvent,
  busEventBytes,
  eventEnvelopeOf,
  MAX_BUS_EVENT_BYTES,
} from '../../lib/queue/event-bus.ts';
import { PUT_EVENTS_MAX_BYTES } from '../../lib/queue/event-bus-eventbridge.ts';
import { SEND_MESSAGE_MAX_BYTES } from '../../lib/queue/send-messages.ts';
import { pairMessageFor } from '../../lib/reconcile/daemon-set-step/fan-out-message.ts';
import { RelayNodeContext } from '../../lib/relay/cluster-view/node-context.ts';
import { watchDetailOf, watchTriggerEvent } from '../../lib/relay/output/trigger.ts';
import { routeIngressMessage } from '../../lib/router/router.ts';
import type { RouterDeps } from '../../lib/router/router-deps.ts';
import { CountersInMemory } from '../router/router-harness.ts';
import { aDaemonSet, aNode } from '../support/builders.ts';

const MiB = 1024 * 1024;
const KIND = 'everynode.dev/v1';
const at = new Date('2026-12-03T00:00:00Z');

/** The sizes of one object's parts, each up to the API server's bound. */
const partsArb = fc.record({
  labels: fc.integer({ min: 0, max: 6_000 }),
  valueLength: fc.integer({ min: 0, max: 63 }),
  /** Label keys: a DNS subdomain prefix of up to 253 characters, '/', a name of up to 63. */
  prefixLength: fc.integer({ min: 0, max: 253 }),
  /** Annotations, of which as much may be everynode's: up to 256 KiB. */
  annotationBytes: fc.integer({ min: 0, max: 256 * 1024 - 64 }),
  everynodeAnnotations: fc.boolean(),
  /** Multi-byte text (annotations and condition messages are any UTF-8). */
  wide: fc.boolean(),
  conditions: fc.integer({ min: 0, max: 1_500 }),
});

type Parts = typeof partsArb extends fc.Arbitrary<infer T> ? T : never;

const sizesArb = fc.record({
  node: partsArb,
  /** A daemon pod's labels are its template's: `labels` of `pod` is not used. */
  pod: partsArb,
  daemonSet: partsArb,
  taints: fc.integer({ min: 0, max: 500 }),
  pods: fc.integer({ min: 1, max: 3 }),
  others: fc.integer({ min: 0, max: 4 }),
  gateKeys: fc.integer({ min: 0, max: MAX_GATE_CHANGE_KEYS }),
});

/** The labels of `parts`, as many as fit in 1 MiB of JSON: the rest of the object's 1.5 MiB is for the others. */
function labelsOf(parts: Parts, tag: string): Record<string, string> {
  const prefix = parts.prefixLength > 0 ? `${'p'.repeat(parts.prefixLength)}/` : '';
  const count = Math.min(parts.labels, Math.floor(MiB / (prefix.length + parts.valueLength + 16)));
  return Object.fromEntries(
    Array.from({ length: count }, (_, i) => [`${prefix}${tag}-${i}`, 'v'.repeat(parts.valueLength)]),
  );
}

function textOf(bytes: number, wide: boolean): string {
  return wide ? '\u2603'.repeat(Math.floor(bytes / 3)) : 'a'.repeat(bytes);
}

function annotationsOf(parts: Parts, everynodeKey: string): Record<string, string> {
  const key = parts.everynodeAnnotations ? everynodeKey : 'example.com/note';
  return parts.annotationBytes > 0 ? { [key]: textOf(parts.annotationBytes, parts.wide) } : {};
}

function conditionsOf(parts: Parts) {
  return Array.from({ length: parts.conditions }, (_, i) => ({
    type: `example.com/gate-${i}`,
    status: 'True',
    lastTransitionTime: at,
  }));
}

/** Bytes of an object as JSON: each stays within the API server's 1.5 MiB. */
const objectBytes = (object: unknown) => Buffer.byteLength(JSON.stringify(object), 'utf8');

function world(sizes: typeof sizesArb extends fc.Arbitrary<infer T> ? T : never) {
  const ds = aDaemonSet('wide', { uid: 'uid-wide', labels: labelsOf(sizes.daemonSet, 'tpl') }) as DaemonSet;
  ds.apiVersion = KIND;
  ds.metadata = {
    ...ds.metadata,
    resourceVersion: '10',
    annotations: annotationsOf(sizes.daemonSet, 'everynode.dev/note'),
  };
  const others = Array.from({ length: sizes.others }, (_, i) => {
    const other = structuredClone(ds);
    other.metadata = { ...other.metadata, name: `other-${i}`, uid: `uid-other-${i}` };
    return other;
  });
  const node: V1Node = aNode('n1', { labels: labelsOf(sizes.node, 'node') });
  node.metadata = {
    ...node.metadata,
    resourceVersion: '20',
    annotations: sizes.node.everynodeAnnotations
      ? { [GATE_RELEASED_ANNOTATION]: textOf(sizes.node.annotationBytes, sizes.node.wide) }
      : annotationsOf(sizes.node, GATE_RELEASED_ANNOTATION),
  };
  node.spec = {
    taints: Array.from({ length: sizes.taints }, (_, i) => ({
      key: `example.com/taint-${i}`,
      value: 'v'.repeat(63),
      effect: 'NoSchedule',
    })),
  };
  node.status = {
    conditions: [
      ...conditionsOf(sizes.node),
      { type: DAEMONSETS_READY_CONDITION, status: 'False', message: textOf(4_096, sizes.node.wide) },
    ],
  };
  const pods: V1Pod[] = Array.from({ length: sizes.pods }, (_, i) => {
    const pod = daemonPodFor(ds, 'n1', 'hash1');
    pod.metadata = {
      ...pod.metadata,
      name: `wide-n1-${i}`,
      uid: `uid-pod-${i}`,
      resourceVersion: `${30 + i}`,
      annotations: annotationsOf(sizes.pod, 'everynode.dev/failure-backoff'),
    };
    pod.spec = { ...pod.spec, containers: pod.spec?.containers ?? [], nodeName: 'n1' };
    pod.status = { phase: 'Failed', conditions: conditionsOf(sizes.pod) };
    return pod;
  });
  return { ds, others, node, pods };
}

/** The router, its queues replaced by lists of the bodies it would send. */
function routerCapturing(bodies: string[]): RouterDeps {
  return {
    kube: {
      listNodes: async () => ({ items: [], resourceVersion: '1' }),
      listDaemonSets: async () => ({ items: [], resourceVersion: '1' }),
    } as unknown as RouterDeps['kube'],
    managedKind: KIND,
    work: {
      send: async (work) => {
        for (const w of work) bodies.push(formatWorkMessage(w.message));
      },
    },
    ingress: async (messages) => {
      for (const m of messages) bodies.push(m.body);
    },
    logger: new Logger({ serviceName: 'everynode-router', logLevel: 'SILENT' }),
    counters: new CountersInMemory(),
    clock: () => at,
  };
}

const bytes = (text: string) => Buffer.byteLength(text, 'utf8');

function expectSendable(event: BusEvent): void {
  const size = busEventBytes(event);
  expect(size).toBeLessThanOrEqual(MAX_BUS_EVENT_BYTES);
  expect(size).toBeLessThan(PUT_EVENTS_MAX_BYTES);
}

describe('message sizes', () => {
  it('every trigger and every work message built of objects up to the API server limits fits SQS and EventBridge', async () => {
    await fc.assert(
      fc.asyncProperty(sizesArb, async (sizes) => {
        const { ds, others, node, pods } = world(sizes);
        for (const object of [ds, node, ...pods])
          expect(objectBytes(object)).toBeLessThan(1.5 * MiB + 64 * 1024);
        const context = new RelayNodeContext();
        context.seed('daemonsets', [ds, ...others]);
        context.seed('nodes', [node]);
        context.seed('pods', pods);
        const [pod] = pods;
        if (pod === undefined) throw new Error('no pod');
        const gateKeys = Array.from({ length: sizes.gateKeys }, (_, i) => `${'k'.repeat(250)}.io/gate-${i}`);
        const triggers: BusEvent[] = [
          watchTriggerEvent(
            watchDetailOf(
              'nodes',
              { type: 'MODIFIED', object: node, resourceVersion: '20' },
              ['labels'],
              KIND,
              {
                ...(context.hintsFor(node, at) ? { node: context.hintsFor(node, at) } : {}),
              },
            ),
            at,
          ),
          watchTriggerEvent(
            watchDetailOf(
              'pods',
              { type: 'MODIFIED', object: pod, resourceVersion: '30' },
              ['phase', 'terminal'],
              KIND,
              {
                ...(context.pairHintsFor(pod, at, '30') ? { pair: context.pairHintsFor(pod, at, '30') } : {}),
                ...(context.nodeHintsFor('n1', at) ? { node: context.nodeHintsFor('n1', at) } : {}),
                gatesNode: true,
                rolloutSlot: true,
                settles: true,
                nodesVersion: '20',
              },
            ),
            at,
          ),
          watchTriggerEvent(
            watchDetailOf(
              'daemonsets',
              { type: 'MODIFIED', object: ds, resourceVersion: '10' },
              ['generation'],
              KIND,
              {
                gateChange: { keys: gateKeys },
                nodesVersion: '20',
              },
            ),
            at,
          ),
        ];
        const bodies: string[] = [];
        const deps = routerCapturing(bodies);
        for (const trigger of triggers) {
          expectSendable(trigger);
          const outcome = await routeIngressMessage(JSON.stringify(eventEnvelopeOf(trigger, at)), deps);
          expect(outcome.type).toBe('routed');
        }
        // The DaemonSet step's fan-out of the same objects.
        const [view] = nodeViewsFor(ds, [node], pods);
        if (view !== undefined) {
          const fanOut: WorkMessage = pairMessageFor(
            {
              ds,
              views: [view],
              gateKeys: [],
              currentHash: 'hash1',
              now: at,
              cause: { type: 'resync', eventId: 'e1', at: at.toISOString() },
              skip: new Set(),
              observation: '20/30',
              nodesResourceVersion: '20',
              listedAt: at.getTime(),
            },
            view,
          );
          bodies.push(formatWorkMessage(fanOut));
        }
        expect(bodies.length).toBeGreaterThan(3);
        for (const body of bodies) expect(bytes(body)).toBeLessThanOrEqual(SEND_MESSAGE_MAX_BYTES);
      }),
      { numRuns: 40 },
    );
  }, 120_000);

  it('the outside probe: 2,000 template labels of 63 characters, a 260 KB DaemonSet, small triggers', () => {
    const sizes = {
      node: {
        labels: 10,
        valueLength: 20,
        prefixLength: 0,
        annotationBytes: 0,
        everynodeAnnotations: false,
        wide: false,
        conditions: 5,
      },
      pod: {
        labels: 0,
        valueLength: 0,
        prefixLength: 0,
        annotationBytes: 0,
        everynodeAnnotations: false,
        wide: false,
        conditions: 5,
      },
      daemonSet: {
        labels: 2_000,
        valueLength: 63,
        prefixLength: 60,
        annotationBytes: 0,
        everynodeAnnotations: false,
        wide: false,
        conditions: 0,
      },
      taints: 0,
      pods: 1,
      others: 0,
      gateKeys: 0,
    };
    const { ds, node, pods } = world(sizes);
    expect(objectBytes(ds)).toBeGreaterThan(250_000);
    const context = new RelayNodeContext();
    context.seed('daemonsets', [ds]);
    context.seed('nodes', [node]);
    context.seed('pods', pods);
    const [pod] = pods;
    if (pod === undefined) throw new Error('no pod');
    const pair = context.pairHintsFor(pod, at, '30');
    expect(pair?.pods[0]?.capped).toBe(true);
    const trigger = watchTriggerEvent(
      watchDetailOf('pods', { type: 'MODIFIED', object: pod, resourceVersion: '30' }, ['phase'], KIND, {
        ...(pair ? { pair } : {}),
      }),
      at,
    );
    expect(busEventBytes(trigger)).toBeLessThan(8 * 1024);
  });
});
