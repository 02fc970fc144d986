/**
 * The DaemonSet conformance suite: every `ginkgo.It` of upstream's test/e2e/apps/daemon_set.go
 * (`[sig-apps] Daemon set [Serial]`) that applies to everynode, with upstream's titles and
 * assertions, against `everynode run` as a user runs it (its own process, on a simulated cluster
 * of the six seed nodes, managing apps/v1 DaemonSets) and driven with the real kubectl. One run
 * serves the whole block, as one cluster serves upstream's: the tests are serial, each in a fresh
 * namespace. The tests live by topic beside this file; see e2e-framework.ts for the harness.
 */
import { describe } from 'vitest';
import { findKubectl } from '../support/kubectl-harness.ts';
import { useDaemonSetSuite } from './daemon-set-e2e.ts';
import { lifecycleTests } from './lifecycle-tests.ts';
import { nodeSelectionTests } from './node-selection-tests.ts';
import { surgeTests } from './surge-tests.ts';
import { updateTests } from './update-tests.ts';

describe.runIf(findKubectl())('[sig-apps] Daemon set [Serial]', () => {
  const f = useDaemonSetSuite(6);
  lifecycleTests(f);
  updateTests(f);
  nodeSelectionTests(f);
  surgeTests(f);
});
