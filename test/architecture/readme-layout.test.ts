/**
 * The README's layout tables against the tree: they name every folder of lib, and list the
 * sub-folders of reconcile and relay row by row as the layers test enforces them.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { subLayers } from './layer-order.ts';
import { repoRoot } from './source-imports.ts';

const readme = readFileSync(join(repoRoot, 'README.md'), 'utf8');
const layout = readme.slice(readme.indexOf('## Layout'));
const foldersOf = (dir: string) =>
  readdirSync(join(repoRoot, dir), { withFileTypes: true })
    .filter((entry) => entry.isDirectory())
    .map((entry) => entry.name)
    .sort();

/** The rows of the table headed `` `runtime` sub-folders ``: the `name/` folders its first column names. */
function statedRows(runtime: string): string[][] {
  const start = layout.indexOf(`| \`${runtime}\` sub-folders |`);
  if (start < 0) return [];
  const table = layout.slice(start, layout.indexOf('\n\n', start)).split('\n').slice(2);
  return table.map((row) => [...(row.split('|')[1] ?? '').matchAll(/`([a-z-]+)\/`/g)].map((m) => m[1] ?? ''));
}

describe("the README's layout tables", () => {
  it('name every folder of lib', () => {
    expect(foldersOf('lib').filter((name) => !layout.includes(`lib/${name}`))).toEqual([]);
  });

  it.each(Object.keys(subLayers))('list the sub-folders of %s row by row as enforced', (runtime) => {
    expect(statedRows(runtime)).toEqual(subLayers[runtime]);
    expect(foldersOf(runtime)).toEqual([...(subLayers[runtime] ?? []).flat()].sort());
  });
});
