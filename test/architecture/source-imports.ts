/**
 * The import graph of the repository's sources, read from the files themselves: every relative
 * `import`/`export … from` (type-only ones too), dynamic `import()` and `new URL(…, import.meta.url)`
 * that names a TypeScript module.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** The repository's root. */
export const repoRoot = resolve(import.meta.dirname, '../..');

const specifiers =
  /(?:^|[\s;])(?:import|export)\s[^;]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)|new URL\(\s*['"]([^'"]+\.ts)['"]/g;

/** Every `.ts` file under the repo-relative folders `roots`, repo-relative, sorted. */
export function sourceFiles(roots: readonly string[]): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(join(repoRoot, dir), { withFileTypes: true }).flatMap((entry) => {
      const path = `${dir}/${entry.name}`;
      if (entry.isDirectory()) return walk(path);
      return entry.name.endsWith('.ts') ? [path] : [];
    });
  return roots.flatMap(walk).sort();
}

/** The repo-relative modules `file` imports by relative path (packages are left out). */
export function importsOf(file: string): string[] {
  const source = readFileSync(join(repoRoot, file), 'utf8');
  const found = new Set<string>();
  for (const match of source.matchAll(specifiers)) {
    const specifier = match[1] ?? match[2] ?? match[3];
    if (specifier?.startsWith('.'))
      found.add(relative(repoRoot, resolve(repoRoot, dirname(file), specifier)));
  }
  return [...found];
}

/** The import graph of `files`: each file and the files it imports among them. */
export function importGraph(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  return new Map(files.map((file) => [file, importsOf(file).filter((target) => known.has(target))]));
}

/** The import cycles of `graph`: its strongly connected components of more than one file, or a self-import. */
export function importCycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (file: string): void => {
    index.set(file, index.size);
    low.set(file, index.get(file) ?? 0);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) visit(next);
      if (onStack.has(next)) low.set(file, Math.min(low.get(file) ?? 0, low.get(next) ?? 0));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
      onStack.delete(top);
      component.push(top);
      if (top === file) break;
    }
    if (component.length > 1 || graph.get(file)?.includes(file)) cycles.push(component.sort());
  };
  for (const file of graph.keys()) if (!index.has(file)) visit(file);
  return cycles;
}
