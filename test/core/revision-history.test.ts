import type { V1ControllerRevision, V1Pod } from '@kubernetes/client-node';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { controllerRevisionFor, revisionHashOf } from '../../lib/core/controller-revision.ts';
import { planRevisions, type RevisionPlan } from '../../lib/core/revision-history.ts';
import { templateHash } from '../../lib/core/template-hash.ts';
import { aDaemonSet, aPod } from '../support/builders.ts';

const current = aDaemonSet('agent', { image: 'v-now', revisionHistoryLimit: 2 });
const hashNow = templateHash(current.spec?.template ?? {});

/** A revision of `agent` for the template running `image`, numbered `number`. */
function aRevision(image: string, number: number, collisionCount?: number): V1ControllerRevision {
  return controllerRevisionFor(aDaemonSet('agent', { image }), number, collisionCount);
}
const podWith = (name: string, hash: string): V1Pod =>
  aPod(name, { owner: current, labels: { 'controller-revision-hash': hash } });
const names = (revisions: readonly V1ControllerRevision[]) => revisions.map((r) => r.metadata?.name);
const summary = (plan: RevisionPlan) => ({
  currentHash: plan.currentHash,
  create: plan.create && [plan.create.metadata?.name, plan.create.revision],
  update: plan.update && [plan.update.metadata?.name, plan.update.revision],
  delete: names(plan.delete),
  relabel: plan.relabel.map((r) => [r.pod.metadata?.name, r.hash]),
  collisionCount: plan.collisionCount,
});

describe('planRevisions', () => {
  const v1 = aRevision('v1', 1);
  const v2 = aRevision('v2', 2);
  const v3 = aRevision('v3', 3);
  const v4 = aRevision('v4', 4);
  const now5 = aRevision('v-now', 5);
  const noChange = { update: undefined, create: undefined, delete: [], relabel: [], collisionCount: 0 };

  it.each([
    {
      name: 'first revision: create number 1',
      revisions: [],
      pods: [],
      expected: { ...noChange, currentHash: hashNow, create: [`agent-${hashNow}`, 1] },
    },
    {
      name: 'template changed: create max+1',
      revisions: [v1, v2],
      pods: [],
      expected: { ...noChange, currentHash: hashNow, create: [`agent-${hashNow}`, 3] },
    },
    {
      name: 'current revision is the newest: nothing to do',
      revisions: [v1, now5],
      pods: [],
      expected: { ...noChange, currentHash: hashNow },
    },
    {
      name: 'rollback to an old template: that revision is renumbered max+1',
      revisions: [aRevision('v-now', 1), v2, v3],
      pods: [],
      expected: { ...noChange, currentHash: hashNow, update: [`agent-${hashNow}`, 4] },
    },
    {
      name: 'beyond revisionHistoryLimit: oldest old revisions deleted',
      revisions: [v4, v2, v1, v3, now5],
      pods: [],
      expected: { ...noChange, currentHash: hashNow, delete: names([v1, v2]) },
    },
    {
      name: 'an old revision a live pod uses is kept, the next oldest goes instead',
      revisions: [v1, v2, v3, v4, now5],
      pods: [podWith('p1', revisionHashOf(v1))],
      expected: { ...noChange, currentHash: hashNow, delete: names([v2, v3]) },
    },
    {
      name: 'a terminating pod protects its revision too',
      revisions: [v1, v2, v3, now5],
      pods: [
        {
          ...podWith('p1', revisionHashOf(v1)),
          metadata: { ...podWith('p1', revisionHashOf(v1)).metadata, deletionTimestamp: new Date() },
        },
      ],
      expected: { ...noChange, currentHash: hashNow, delete: names([v2]) },
    },
    {
      name: 'revisions of other DaemonSets are neither history nor deleted',
      revisions: [
        v1,
        v2,
        v3,
        controllerRevisionFor(aDaemonSet('other', { image: 'x' }), 1),
        controllerRevisionFor(aDaemonSet('agent', { image: 'x', uid: 'uid-old-agent' }), 9),
        now5,
      ],
      pods: [],
      expected: { ...noChange, currentHash: hashNow, delete: names([v1]) },
    },
  ])('$name', ({ revisions, pods, expected }) => {
    expect(summary(planRevisions(current, revisions, pods))).toEqual(expected);
  });

  it('revisionHistoryLimit 0 deletes every old revision no pod uses', () => {
    const ds = { ...current, spec: { ...current.spec, revisionHistoryLimit: 0 } } as typeof current;
    const plan = planRevisions(ds, [v1, v2, now5], [podWith('p', revisionHashOf(v2))]);
    expect(names(plan.delete)).toEqual(names([v1]));
  });

  it('defaults revisionHistoryLimit to 10', () => {
    const ds = structuredClone(current);
    delete ds.spec?.revisionHistoryLimit;
    const old = Array.from({ length: 12 }, (_, i) => aRevision(`old-${i}`, i + 1));
    expect(names(planRevisions(ds, [...old, aRevision('v-now', 13)], []).delete)).toEqual(
      names(old.slice(0, 2)),
    );
  });

  describe('duplicates of the current template', () => {
    const dupLow = aRevision('v-now', 2, 7);
    const dupHigh = aRevision('v-now', 4);
    it.each([
      {
        name: 'unused duplicate: the highest number is kept, the other deleted',
        pods: [podWith('p1', hashNow)],
        expected: { ...noChange, currentHash: hashNow, delete: names([dupLow]) },
      },
      {
        name: 'duplicate still used: its pods relabelled first, deleted on a later pass',
        pods: [podWith('p1', revisionHashOf(dupLow)), podWith('p2', revisionHashOf(v1))],
        expected: { ...noChange, currentHash: hashNow, relabel: [['p1', hashNow]] },
      },
    ])('$name', ({ pods, expected }) => {
      expect(summary(planRevisions(current, [dupLow, v1, dupHigh], pods))).toEqual(expected);
    });

    it('the kept duplicate is renumbered when an old revision is newer', () => {
      const plan = planRevisions(current, [dupLow, dupHigh, aRevision('v9', 9)], []);
      expect(summary(plan)).toMatchObject({ update: [`agent-${hashNow}`, 10], delete: names([dupLow]) });
    });
  });

  describe('hash collisions', () => {
    it('a revision with the new name but other data bumps collisionCount and renames', () => {
      const squatter = {
        ...aRevision('other', 1),
        metadata: { ...aRevision('other', 1).metadata, name: `agent-${hashNow}` },
      };
      const plan = planRevisions(current, [squatter], []);
      const bumped = templateHash(current.spec?.template ?? {}, 1);
      expect(summary(plan)).toMatchObject({
        collisionCount: 1,
        currentHash: bumped,
        create: [`agent-${bumped}`, 2],
      });
    });

    it('an existing revision of that name with the same data is used, not recreated', () => {
      const orphan = {
        ...aRevision('v-now', 3),
        metadata: { ...aRevision('v-now', 3).metadata, ownerReferences: [] },
      };
      const plan = planRevisions(current, [orphan], []);
      expect(summary(plan)).toEqual({ ...noChange, currentHash: hashNow });
      expect(plan.current.metadata?.name).toBe(`agent-${hashNow}`);
    });

    it('keeps the DaemonSet collisionCount when nothing collides', () => {
      const ds = {
        ...current,
        status: {
          currentNumberScheduled: 0,
          desiredNumberScheduled: 0,
          numberMisscheduled: 0,
          numberReady: 0,
          collisionCount: 3,
        },
      };
      const plan = planRevisions(ds, [], []);
      expect(plan.collisionCount).toBe(3);
      expect(plan.currentHash).toBe(templateHash(current.spec?.template ?? {}, 3));
    });
  });
});

describe('planRevisions with long names', () => {
  const prefix = 'a'.repeat(223);
  // Two 253-character DaemonSets sharing their first 223 characters and their template.
  const first = aDaemonSet(`${prefix}-${'1'.repeat(29)}`, { labels: { app: 'same' } });
  const second = aDaemonSet(`${prefix}-${'2'.repeat(29)}`, { labels: { app: 'same' } });
  const hash = templateHash(first.spec?.template ?? {});
  const bumped = templateHash(first.spec?.template ?? {}, 1);

  it('a 253-character DaemonSet creates a revision named by its first 223 characters', () => {
    expect(summary(planRevisions(first, [], []))).toMatchObject({ create: [`${prefix}-${hash}`, 1] });
  });

  it('another DaemonSet whose revision would take that name gets one of its own', () => {
    const theirs = planRevisions(first, [], []).create as V1ControllerRevision;
    expect(summary(planRevisions(second, [theirs], []))).toEqual({
      currentHash: bumped,
      create: [`${prefix}-${bumped}`, 1],
      update: undefined,
      delete: [],
      relabel: [],
      collisionCount: 1,
    });
  });

  it("a recreated DaemonSet's predecessor's revision of the same name is a collision (upstream IsControlledBy)", () => {
    const predecessor = controllerRevisionFor(aDaemonSet('agent', { image: 'v-now', uid: 'uid-old' }), 1);
    const plan = planRevisions(current, [predecessor], []);
    expect(summary(plan)).toMatchObject({ collisionCount: 1, create: [`agent-${plan.currentHash}`, 1] });
    expect(plan.currentHash).not.toBe(hashNow);
  });

  it('a revision named in full before names were cut stays current: matched by data and owner', () => {
    const ds = aDaemonSet(`${prefix}${'b'.repeat(17)}`, { labels: { app: 'same' } });
    const made = controllerRevisionFor(ds, 1);
    const named = { ...made, metadata: { ...made.metadata, name: `${ds.metadata?.name}-${hash}` } };
    const plan = planRevisions(ds, [named], [podWith('p', hash)]);
    expect(summary(plan)).toEqual({
      currentHash: hash,
      create: undefined,
      update: undefined,
      delete: [],
      relabel: [],
      collisionCount: 0,
    });
    expect(plan.current.metadata?.name).toBe(named.metadata.name);
  });
});

/** The revisions and pods after executing `plan`. */
function apply(plan: RevisionPlan, revisions: V1ControllerRevision[], pods: V1Pod[]) {
  const deleted = new Set(names(plan.delete));
  const next = revisions
    .filter((r) => !deleted.has(r.metadata?.name))
    .map((r) => (plan.update && r.metadata?.name === plan.update.metadata?.name ? plan.update : r));
  if (plan.create) next.push(plan.create);
  const relabelled = pods.map((pod) => {
    const change = plan.relabel.find((r) => r.pod.metadata?.name === pod.metadata?.name);
    return change
      ? {
          ...pod,
          metadata: {
            ...pod.metadata,
            labels: { ...pod.metadata?.labels, 'controller-revision-hash': change.hash },
          },
        }
      : pod;
  });
  return { revisions: next, pods: relabelled };
}

describe('planRevisions property', () => {
  const history = fc.uniqueArray(
    fc.record({
      image: fc.constantFrom('v-now', 'a', 'b', 'c', 'd', 'e'),
      number: fc.integer({ min: 1, max: 20 }),
      count: fc.option(fc.nat(3), { nil: undefined }),
    }),
    { selector: (r) => `${r.image}/${r.count}`, maxLength: 8 },
  );
  it('converges: applying the plan at most twice leaves nothing to do, and no used or current revision is deleted', () => {
    fc.assert(
      fc.property(history, fc.array(fc.nat(7), { maxLength: 5 }), fc.nat(4), (specs, podPicks, limit) => {
        const ds = { ...current, spec: { ...current.spec, revisionHistoryLimit: limit } } as typeof current;
        let revisions = specs.map((s) => aRevision(s.image, s.number, s.count));
        let pods = podPicks.map((pick, i) =>
          podWith(
            `p${i}`,
            revisionHashOf(revisions[pick % Math.max(1, revisions.length)] ?? aRevision('z', 1)),
          ),
        );
        for (let pass = 0; pass < 2; pass++) {
          const plan = planRevisions(ds, revisions, pods);
          const used = new Set(pods.map((p) => p.metadata?.labels?.['controller-revision-hash']));
          expect(
            plan.delete.some(
              (r) => used.has(revisionHashOf(r)) || r.metadata?.name === plan.current.metadata?.name,
            ),
          ).toBe(false);
          ({ revisions, pods } = apply(plan, revisions, pods));
        }
        const last = planRevisions(ds, revisions, pods);
        expect([last.create, last.update, last.delete.length, last.relabel.length]).toEqual([
          undefined,
          undefined,
          0,
          0,
        ]);
      }),
    );
  });
});
