/**
 * The README's layout section against the tree: it names every folder of lib, and states the
 * sub-folders of reconcile and relay in the order the layers test enforces.
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

/** The sub-folders the paragraph about `runtime` names (`name/` in backquotes), in their order. */
function statedOrder(runtime: string): string[] {
  const start = layout.indexOf(`\`${runtime}\` sub-folders`);
  const paragraph = layout.slice(start, layout.indexOf('\n\n', start));
  return [...paragraph.matchAll(/`([a-z-]+)\/`/g)].map((match) => match[1] ?? '');
}

describe("the README's layout section", () => {
  it('names every folder of lib', () => {
    expect(foldersOf('lib').filter((name) => !layout.includes(`lib/${name}`))).toEqual([]);
  });

  it.each(Object.keys(subLayers))(
    'states the sub-folders of %s as they are, in the enforced order',
    (runtime) => {
      expect(statedOrder(runtime)).toEqual((subLayers[runtime] ?? []).flat());
      expect(foldersOf(runtime)).toEqual([...(subLayers[runtime] ?? []).flat()].sort());
    },
  );
});
