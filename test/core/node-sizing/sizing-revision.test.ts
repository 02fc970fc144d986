import type { V1DaemonSet } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import {
  controllerRevisionFor,
  revisionData,
  revisionMatches,
} from '../../../lib/core/controller-revision.ts';
import { planRevisions } from '../../../lib/core/revision-history.ts';
import { templateHash } from '../../../lib/core/template-hash.ts';
import { aDaemonSet } from '../../support/builders.ts';

const ANNOTATION = 'everynode.dev/node-sizing';
const small = [{ container: 'main', perAllocatable: { cpu: '0.5%' } }];
const large = [{ container: 'main', perAllocatable: { cpu: '1%' } }];

const plain = aDaemonSet('agent');
const annotated = (rules: unknown): V1DaemonSet => ({
  ...plain,
  metadata: { ...plain.metadata, annotations: { [ANNOTATION]: JSON.stringify(rules) } },
});
const withField = (rules: unknown): V1DaemonSet =>
  ({ ...plain, apiVersion: 'everynode.dev/v1', spec: { ...plain.spec, nodeSizing: rules } }) as V1DaemonSet;

describe('node sizing in revisions', () => {
  it('leaves the data and hash of a DaemonSet without rules as they were', () => {
    expect(revisionData(plain)).toEqual({
      spec: { template: { ...revisionDataTemplate(plain), $patch: 'replace' } },
    });
    expect(controllerRevisionFor(plain, 1).metadata?.labels?.['controller-revision-hash']).toBe(
      templateHash(plain.spec?.template ?? {}, undefined),
    );
  });

  it('keeps the rules where each kind holds them: spec.nodeSizing, or the annotation under metadata', () => {
    expect(revisionData(withField(small))).toMatchObject({ spec: { nodeSizing: small } });
    expect(revisionData(annotated(small))).toMatchObject({
      metadata: { annotations: { [ANNOTATION]: JSON.stringify(small) } },
    });
  });

  it('makes a change of the rules a new revision under a new hash, and a return to old rules the old revision', () => {
    const first = controllerRevisionFor(annotated(small), 1);
    const hash = (r: typeof first) => r.metadata?.labels?.['controller-revision-hash'];
    const resized = planRevisions(annotated(large), [first], []);
    expect(resized.create).toBeDefined();
    expect(resized.currentHash).not.toBe(hash(first));
    expect(resized.current.revision).toBe(2);
    const second = resized.create ?? first;
    const undone = planRevisions(annotated(small), [first, second], []);
    expect(undone.create).toBeUndefined();
    expect(undone.currentHash).toBe(hash(first));
    expect(undone.update?.revision).toBe(3);
    const unsized = planRevisions(plain, [first, second], []);
    expect(unsized.create).toBeDefined();
    expect(unsized.currentHash).toBe(templateHash(plain.spec?.template ?? {}, undefined));
  });

  it('matches a revision of the other kind holding the same template and rules, and not one without them', () => {
    const ofApps = controllerRevisionFor(annotated(small), 1);
    const ofEds = controllerRevisionFor(withField(small), 1);
    expect(revisionMatches(withField(small), ofApps)).toBe(true);
    expect(revisionMatches(annotated(small), ofEds)).toBe(true);
    expect(revisionMatches(annotated(large), ofApps)).toBe(false);
    expect(revisionMatches(plain, ofApps)).toBe(false);
    expect(revisionMatches(annotated(small), controllerRevisionFor(plain, 1))).toBe(false);
    expect(ofApps.metadata?.name).toBe(ofEds.metadata?.name);
  });

  it('compares rules by meaning, not key order or spacing', () => {
    const spaced: V1DaemonSet = {
      ...plain,
      metadata: {
        ...plain.metadata,
        annotations: { [ANNOTATION]: '[ { "perAllocatable": {"cpu": "0.5%"}, "container": "main" } ]' },
      },
    };
    expect(revisionMatches(spaced, controllerRevisionFor(annotated(small), 1))).toBe(true);
  });
});

function revisionDataTemplate(ds: V1DaemonSet): object {
  const data = revisionData(ds) as { spec: { template: Record<string, unknown> } };
  const { $patch: _, ...template } = data.spec.template;
  return template;
}
