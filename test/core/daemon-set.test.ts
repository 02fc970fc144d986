import { describe, expect, it } from 'vitest';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  DAEMONSET_UID_LABEL,
  POD_TEMPLATE_GENERATION_LABEL,
  TEMPLATE_GENERATION_ANNOTATION,
} from '../../lib/core/daemon-set.ts';

describe('daemon-set names', () => {
  it.each([
    // Upstream apps/v1 DefaultDaemonSetUniqueLabelKey: kubectl rollout history reads this label.
    {
      name: 'revision hash label',
      actual: CONTROLLER_REVISION_HASH_LABEL,
      expected: 'controller-revision-hash',
    },
    // Upstream apps/v1 DaemonSetTemplateGenerationKey.
    {
      name: 'template generation label',
      actual: POD_TEMPLATE_GENERATION_LABEL,
      expected: 'pod-template-generation',
    },
    // Upstream apps/v1 DeprecatedTemplateGeneration.
    {
      name: 'template generation annotation',
      actual: TEMPLATE_GENERATION_ANNOTATION,
      expected: 'deprecated.daemonset.template.generation',
    },
    { name: 'daemonset uid label', actual: DAEMONSET_UID_LABEL, expected: 'everynode.dev/daemonset-uid' },
  ])('$name is $expected', ({ actual, expected }) => {
    expect(actual).toBe(expected);
  });
});
