/**
 * `npm run bench -- package-install [--rounds N]`: what installing everynode costs a user. Packs
 * the repository, then N times (default 3), alternating, installs into an empty project
 * aws-cdk-lib and constructs alone with an empty stack synthesized, and the tarball beside them with
 * a user's stack synthesized; prints the packed size and the fastest of each, and their ratio
 * (goal ≤ 1.2: the package adds at most a fifth to a user's install and synth). One install's
 * time varies by seconds with the registry and the disk, hence the rounds.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import {
  CDK_LIBRARIES,
  EMPTY_APP,
  installAndSynth,
  packedSize,
  packRepository,
  USER_APP,
} from '../support/user-project.ts';

const { values } = parseArgs({ options: { rounds: { type: 'string', default: '3' } } });
const rounds = Math.max(1, Number(values.rounds));
const scratch = mkdtempSync(join(tmpdir(), 'everynode-package-bench-'));
try {
  const [packDir, userDir, emptyDir] = ['pack', 'user', 'empty'].map((name) => join(scratch, name)) as [
    string,
    string,
    string,
  ];
  for (const dir of [packDir, userDir, emptyDir]) mkdirSync(dir);
  const { tarball, info } = await packRepository(packDir);
  const times = { empty: Number.POSITIVE_INFINITY, user: Number.POSITIVE_INFINITY };
  for (let round = 0; round < rounds; round++) {
    for (const dir of [emptyDir, userDir])
      rmSync(join(dir, 'node_modules'), { recursive: true, force: true });
    const empty = await installAndSynth(emptyDir, EMPTY_APP, CDK_LIBRARIES);
    const user = await installAndSynth(userDir, USER_APP, [tarball, ...CDK_LIBRARIES]);
    console.log(`round ${round + 1}: empty ${empty.toFixed(1)} s, with everynode ${user.toFixed(1)} s`);
    times.empty = Math.min(times.empty, empty);
    times.user = Math.min(times.user, user);
  }
  console.log(
    `npm package: ${packedSize(info)}; install + synth ${times.user.toFixed(1)} s against ${times.empty.toFixed(1)} s for aws-cdk-lib and ` +
      `constructs alone and an empty stack (fastest of ${rounds}): ` +
      `${(times.user / times.empty).toFixed(2)} × (goal ≤ 1.2)`,
  );
} finally {
  rmSync(scratch, { recursive: true, force: true });
}
