/**
 * The nodes a simulated cluster starts with: the six seed nodes of lib/sim/fixtures/nodes.yaml
 * (one per placement rule: plain, ssd, control plane, cordoned, not ready, NoExecute-tainted; no
 * instance type, so the default size of 4 cpu, 16 GiB and 110 pods) when few are asked for,
 * `node-00001`… of mixed EC2 instance types when many.
 */
import { readFileSync } from 'node:fs';
import type { V1Node } from '@kubernetes/client-node';
import { parse } from 'yaml';
import { INSTANCE_TYPE_LABEL, instanceTypeFor } from './instance-types.ts';

const fixtureUrl = new URL('./fixtures/nodes.yaml', import.meta.url);

/** The seed nodes, in file order; fresh objects on every call. */
export function fixtureNodes(): V1Node[] {
  const list = parse(readFileSync(fixtureUrl, 'utf8')) as { items?: V1Node[] };
  return list.items ?? [];
}

/** Availability zones generated nodes are spread over. */
const zones = ['us-east-1a', 'us-east-1b', 'us-east-1c'];

/**
 * A Ready node `node-<index, 5 digits>` labelled like the seed nodes (hostname, os, arch) plus
 * its zone and its instance type (`node.kubernetes.io/instance-type`, by instanceTypeFor: a
 * deterministic mix of m6i.large … r6a.32xlarge, whose capacity and allocatable its kubelet
 * reports), with an EC2-style `spec.providerID` (`aws:///<zone>/i-<17 hex digits>`).
 */
export function generatedNode(index: number): V1Node {
  const name = `node-${String(index).padStart(5, '0')}`;
  const zone = zones[index % zones.length] ?? 'us-east-1a';
  return {
    apiVersion: 'v1',
    kind: 'Node',
    metadata: {
      name,
      labels: {
        'kubernetes.io/hostname': name,
        'kubernetes.io/os': 'linux',
        'kubernetes.io/arch': 'amd64',
        'topology.kubernetes.io/zone': zone,
        [INSTANCE_TYPE_LABEL]: instanceTypeFor(index).name,
      },
    },
    spec: { providerID: `aws:///${zone}/i-${index.toString(16).padStart(17, '0')}` },
    status: { conditions: [{ type: 'Ready', status: 'True' }] },
  };
}

/**
 * The nodes for `count`: undefined → the six seed nodes; up to six → the first `count` of them;
 * more → `node-00001`…`node-<count>`; 0 → none.
 */
export function simNodes(count?: number): V1Node[] {
  const fixtures = fixtureNodes();
  if (count === undefined) return fixtures;
  if (!Number.isInteger(count) || count < 0)
    throw new RangeError(`node count must be an integer >= 0, got ${count}`);
  if (count <= fixtures.length) return fixtures.slice(0, count);
  return Array.from({ length: count }, (_, i) => generatedNode(i + 1));
}
