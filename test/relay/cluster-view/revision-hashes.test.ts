import type { V1ControllerRevision, V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { controllerRevisionFor } from '../../../lib/core/controller-revision.ts';
import type { DaemonSet } from '../../../lib/core/daemon-set.ts';
import { RelayRevisionHashes } from '../../../lib/relay/cluster-view/revision-hashes.ts';
import { aDaemonSet } from '../../support/builders.ts';

const agent = aDaemonSet('agent', { uid: 'ds-agent' }) as V1DaemonSet as DaemonSet;
agent.metadata = { ...agent.metadata, resourceVersion: '7' };
const hashLabel = (revision: V1ControllerRevision) => revision.metadata?.labels?.['controller-revision-hash'];
const ours = controllerRevisionFor(agent, 1);

/** `ours` under another uid and hash label, as a revision another controller made for the same template. */
function relabelled(uid: string, hash: string, owner?: { kind: string; uid: string }): V1ControllerRevision {
  const ownerReferences = owner
    ? [{ apiVersion: 'apps/v1', kind: owner.kind, name: 'x', uid: owner.uid, controller: true }]
    : ours.metadata?.ownerReferences;
  return {
    ...ours,
    metadata: {
      ...ours.metadata,
      uid,
      name: `agent-${hash}`,
      labels: { 'controller-revision-hash': hash },
      ownerReferences,
    },
  };
}

describe('RelayRevisionHashes', () => {
  it('knows no hash before the revisions were listed', () => {
    const hashes = new RelayRevisionHashes();
    hashes.put(relabelled('r1', 'early'));
    expect(hashes.hashOf(agent)).toBeUndefined();
  });

  it.each([
    { name: 'no revision: the one the DaemonSet step will create', revisions: [], expected: hashLabel(ours) },
    {
      name: 'a matching revision it controls: its hash',
      revisions: [relabelled('r1', 'kcm')],
      expected: 'kcm',
    },
    {
      name: 'an orphan of the same name and template (left by --cascade=orphan): its hash, reused',
      revisions: [
        {
          ...relabelled('r1', 'orphaned'),
          metadata: {
            ...relabelled('r1', 'orphaned').metadata,
            name: ours.metadata?.name,
            ownerReferences: [],
          },
        },
      ],
      expected: 'orphaned',
    },
  ])('$name', ({ revisions, expected }) => {
    const hashes = new RelayRevisionHashes();
    hashes.seed(revisions);
    expect(hashes.hashOf(agent)).toBe(expected);
  });

  it('follows revisions added and deleted, and a DaemonSet at a new version', () => {
    const hashes = new RelayRevisionHashes();
    hashes.seed([]);
    const theirs = relabelled('r1', 'kcm');
    hashes.put(theirs);
    expect(hashes.hashOf(agent)).toBe('kcm');
    hashes.drop(theirs);
    expect(hashes.hashOf(agent)).toBe(hashLabel(ours));
    const changed = structuredClone(agent);
    changed.metadata = { ...changed.metadata, resourceVersion: '8' };
    const container = changed.spec?.template.spec?.containers[0];
    if (container) container.image = 'busybox:1.37';
    expect(hashes.hashOf(changed)).toBe(hashLabel(controllerRevisionFor(changed, 1)));
    expect(hashes.hashOf(changed)).not.toBe(hashLabel(ours));
  });

  it("keeps only the name of another kind of controller's revision: enough for a collision", () => {
    const hashes = new RelayRevisionHashes();
    const sts = { ...relabelled('r9', String(hashLabel(ours)), { kind: 'StatefulSet', uid: 'sts' }) };
    sts.metadata = { ...sts.metadata, name: ours.metadata?.name };
    hashes.seed([sts]);
    expect(hashes.hashOf(agent)).toBe(hashLabel(controllerRevisionFor(agent, 1, 1)));
  });
});
