import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { lockStateDir, STATE_DIR_LOCK_FILE } from '../../lib/cli/state-dir-lock.ts';

/** A pid no process has any more: a child that has exited and been reaped. */
function aGonePid(): number {
  const pid = spawnSync(process.execPath, ['-e', '']).pid;
  if (!pid) throw new Error('spawning a short-lived process failed');
  return pid;
}

/** A fresh state directory, with a lock file holding `content` when given. */
function aStateDir(content?: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'everynode-lock-'));
  if (content !== undefined) writeFileSync(join(dir, STATE_DIR_LOCK_FILE), content);
  return dir;
}

const lockText = (dir: string) => readFileSync(join(dir, STATE_DIR_LOCK_FILE), 'utf8');

// This test's process stands for the run taking the lock; its parent for a live run holding it.
const me = process.pid;
const liveOther = process.ppid;

describe('lockStateDir', () => {
  const taken: { name: string; content?: string }[] = [
    { name: 'a directory without a lock' },
    { name: 'a lock whose process is gone', content: `${aGonePid()}\n` },
    { name: 'a lock naming this very pid (reused after a restart)', content: `${me}\n` },
    { name: 'an empty lock left by a run that died creating it', content: '' },
    { name: 'a lock that names no pid', content: 'not a pid\n' },
  ];
  it.each(taken)('takes $name', async ({ content }) => {
    const dir = aStateDir(content);
    const lock = await lockStateDir(dir, me);
    expect(lock.held).toBe(true);
    expect(lockText(dir)).toBe(`${me}\n`);
  });

  it('refuses a lock a live process holds, naming it, and leaves the lock as it was', async () => {
    const dir = aStateDir(`${liveOther}\n`);
    const lock = await lockStateDir(dir, me);
    expect(lock).toMatchObject({ held: false, pid: liveOther, path: join(dir, STATE_DIR_LOCK_FILE) });
    expect(lockText(dir)).toBe(`${liveOther}\n`);
  });

  it('creates the state directory it locks', async () => {
    const dir = join(aStateDir(), 'nested', 'state');
    expect((await lockStateDir(dir, me)).held).toBe(true);
    expect(lockText(dir)).toBe(`${me}\n`);
  });

  it('removes the lock on release', async () => {
    const dir = aStateDir();
    const lock = await lockStateDir(dir, me);
    if (!lock.held) throw new Error('expected the lock');
    await lock.release();
    expect(existsSync(join(dir, STATE_DIR_LOCK_FILE))).toBe(false);
  });

  it('leaves a lock another run has taken since on release', async () => {
    const dir = aStateDir();
    const lock = await lockStateDir(dir, me);
    if (!lock.held) throw new Error('expected the lock');
    writeFileSync(join(dir, STATE_DIR_LOCK_FILE), `${liveOther}\n`);
    await lock.release();
    expect(lockText(dir)).toBe(`${liveOther}\n`);
  });

  it('gives a stale lock to exactly one of two runs taking it over together', async () => {
    const dir = aStateDir(`${aGonePid()}\n`);
    const [a, b] = await Promise.all([lockStateDir(dir, me), lockStateDir(dir, liveOther)]);
    const winner = a.held ? me : liveOther;
    expect([a.held, b.held].filter(Boolean)).toHaveLength(1);
    expect([a, b].find((lock) => !lock.held)).toMatchObject({ held: false, pid: winner });
    expect(lockText(dir)).toBe(`${winner}\n`);
  });
});
