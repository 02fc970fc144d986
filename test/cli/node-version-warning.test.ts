import { spawn } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePipelineState } from '../../lib/cli/pipeline-state.ts';
import { type LocalQueues, startLocalQueues } from '../../lib/queue/local-queues.ts';

const root = fileURLToPath(new URL('../..', import.meta.url));
const bin = join(root, 'bin', 'everynode.js');
const SWITCH = 'AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED';
const WARNING = 'NodeVersionSupportWarning';
const nodeMajor = Number(process.versions.node.split('.')[0]);

/** Runs `node args` without the SDK's switch in its environment (the test workers have it set). */
function runNode(args: readonly string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env[SWITCH];
  delete env.KUBECONFIG;
  const child = spawn(process.execPath, args, { env, stdio: 'pipe', cwd: root });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += String(chunk)));
  child.stderr.on('data', (chunk) => (stderr += String(chunk)));
  return new Promise((resolve) => child.on('close', (code) => resolve({ code, stdout, stderr })));
}

describe("the AWS SDK's Node version warning", () => {
  let queues: LocalQueues;
  let stateDir: string;
  beforeAll(async () => {
    queues = await startLocalQueues();
    stateDir = mkdtempSync(join(tmpdir(), 'everynode-sdk-warning-'));
    // A pipeline state naming this process and its queues, as a running `everynode run` writes it.
    await writePipelineState(stateDir, {
      pid: process.pid,
      startedAt: new Date().toISOString(),
      sqsEndpoint: queues.endpoint,
      queues: queues.urls,
      journalPath: join(stateDir, 'journal'),
      kubeconfigPath: join(stateDir, 'kubeconfig'),
      managedKind: 'apps/v1',
    });
  });
  afterAll(async () => queues?.stop());

  it('is printed by the SDK on Node 20 when nothing silences it', async () => {
    const script =
      "const { SQSClient } = await import('@aws-sdk/client-sqs'); new SQSClient({ region: 'us-east-1' });";
    const { code, stderr } = await runNode(['--input-type=module', '-e', script]);
    expect(code).toBe(0);
    // Node 22 and later never get it: there the check below holds with or without the switch.
    expect(stderr.includes(WARNING)).toBe(nodeMajor < 22);
  }, 60_000);

  it('is not printed by an everynode command that talks to SQS', async () => {
    const { code, stdout, stderr } = await runNode([bin, 'redrive', '--state-dir', stateDir]);
    expect({ code, stdout }).toEqual({
      code: 0,
      stdout: 'everynode redrive: moved 0 message(s) back to the work queue\n',
    });
    expect(stderr).not.toContain(WARNING);
  }, 60_000);
});
