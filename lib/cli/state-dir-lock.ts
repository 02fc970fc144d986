/**
 * One controller per state directory: `everynode run` holds `<state dir>/everynode.pid`, a file
 * naming its pid, created with O_EXCL so that of two runs starting together exactly one creates
 * it. A run finding the file refuses while that pid is alive (`kill(pid, 0)`) and takes the lock
 * over when it is gone (killed with SIGKILL, crashed), as pid files of daemons are taken over. The
 * holder removes the file when it stops cleanly.
 */
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { EverynodeError } from '../errors/everynode-error.ts';

/** The lock file's name in the state directory. */
export const STATE_DIR_LOCK_FILE = 'everynode.pid';

/** The lock, held; or who holds it. */
export type StateDirLock =
  | { readonly held: true; readonly path: string; release(): Promise<void> }
  | { readonly held: false; readonly path: string; readonly pid: number };

/** The lock kept changing hands while being taken over; trying again may succeed. */
export class StateDirLockError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, true, options);
  }
}

/** Whether process `pid` exists (one of another user counts: `kill` is refused, not unanswered). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

// A file found empty is being written by the run that just created it; after this many looks it
// was left so by a run that died in between, and counts as stale.
const emptyLooks = 20;
const lookEveryMs = 50;

/**
 * The lock of `stateDir` for process `pid` (this one by default): `held` with a `release` that
 * removes the file, or, when a live process holds it, `held: false` naming that process. A file
 * naming a process that is gone, or `pid` itself (a pid reused after a restart), is taken over.
 */
export async function lockStateDir(stateDir: string, pid: number = process.pid): Promise<StateDirLock> {
  await mkdir(stateDir, { recursive: true });
  const path = join(stateDir, STATE_DIR_LOCK_FILE);
  let empty = 0;
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await createExclusive(path, pid)) return { held: true, path, release: () => release(path, pid) };
    const text = await readText(path);
    if (text === undefined) continue; // removed in between: try to create it again
    const holder = pidIn(text);
    if (holder === undefined && ++empty < emptyLooks) {
      await sleep(lookEveryMs);
      continue;
    }
    if (holder !== undefined && holder !== pid && processAlive(holder))
      return { held: false, path, pid: holder };
    await removeStale(path, text, pid);
  }
  throw new StateDirLockError(`taking the lock ${path}: other runs kept taking it over`);
}

/** Creates `path` holding `pid` unless it exists (O_CREAT | O_EXCL); false when it does. */
async function createExclusive(path: string, pid: number): Promise<boolean> {
  try {
    await writeFile(path, `${pid}\n`, { flag: 'wx' });
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EEXIST') return false;
    throw new StateDirLockError(`creating the lock ${path}`, { cause: error });
  }
}

/** The text of `path`; undefined when there is no such file. */
async function readText(path: string): Promise<string | undefined> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new StateDirLockError(`reading the lock ${path}`, { cause: error });
  }
}

function pidIn(text: string): number | undefined {
  const pid = Number(text.trim());
  return /^\d+$/.test(text.trim()) && pid > 0 ? pid : undefined;
}

/**
 * Removes the stale lock `path` whose text was `stale`. It is moved aside first and checked: if
 * another run took the lock over since it was read, the file moved is that run's, and is put back.
 */
async function removeStale(path: string, stale: string, pid: number): Promise<void> {
  const aside = `${path}.stale-${pid}`;
  try {
    await rename(path, aside);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw new StateDirLockError(`taking over the stale lock ${path}`, { cause: error });
  }
  if ((await readText(aside)) !== stale) await link(aside, path).catch(() => undefined);
  await rm(aside, { force: true });
}

/** Removes the lock if it still names `pid`. */
async function release(path: string, pid: number): Promise<void> {
  const text = await readText(path).catch(() => undefined);
  if (text !== undefined && pidIn(text) === pid) await rm(path, { force: true });
}
