import { describe, expect, it } from 'vitest';
import { importCycles, importGraph, sourceFiles } from './source-imports.ts';

/**
 * The layers, top to bottom. A module may import its own folder, any folder of a lower layer, and
 * the folders its row names besides; nothing else. The three runtimes share one layer and never
 * import each other: what they share lives below them.
 */
const layers: readonly (readonly string[])[] = [
  ['functions', 'lib/cli', 'lib/kubectl-plugin'],
  ['lib/local'],
  ['lib/relay', 'lib/router', 'lib/reconcile'],
  ['lib/queue', 'lib/messages', 'lib/kube'],
  ['lib/core'],
  ['lib/errors', 'lib/log', 'lib/config'],
];

/** Imports allowed beside the layer order: within the message/queue/Kubernetes layer, downwards. */
const besides: Readonly<Record<string, readonly string[]>> = {
  'lib/queue': ['lib/messages', 'lib/kube'],
  'lib/messages': ['lib/kube'],
  'lib/config': ['lib/errors'],
  'lib/log': ['lib/errors'],
  // The simulated cluster stands beside the pipeline: it reuses the pure decisions, nothing else.
  'lib/sim': ['lib/core', 'lib/errors'],
  // The command line starts the simulated cluster; the CDK app takes constants (names, defaults).
  'lib/cli': ['lib/sim'],
  infra: layers.slice(1).flat(),
};

/** The folder that is `file`'s unit of layering: `lib/<name>`, or the top folder. */
function unitOf(file: string): string {
  const [top, second] = file.split('/');
  return top === 'lib' ? `lib/${second}` : (top ?? file);
}

function mayImport(from: string, to: string): boolean {
  if (from === to || besides[from]?.includes(to)) return true;
  const layerOf = (unit: string) => layers.findIndex((row) => row.includes(unit));
  const [fromLayer, toLayer] = [layerOf(from), layerOf(to)];
  return fromLayer >= 0 && toLayer >= 0 && toLayer > fromLayer;
}

const files = sourceFiles(['lib', 'functions', 'infra']);
const graph = importGraph(files);

describe('the import graph of lib, functions and infra', () => {
  it('knows every folder of lib', () => {
    const units = new Set(files.map(unitOf));
    const placed = new Set([...layers.flat(), 'lib/sim', 'infra']);
    expect([...units].filter((unit) => !placed.has(unit))).toEqual([]);
  });

  it('has no import that points up a layer or sideways between runtimes', () => {
    const violations = [...graph].flatMap(([file, targets]) =>
      targets
        .filter((target) => !mayImport(unitOf(file), unitOf(target)))
        .map((target) => `${file} -> ${target}`),
    );
    expect(violations).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('is read from the sources: the graph has the edges the handlers are built from', () => {
    expect(graph.get('functions/reconcile/index.ts')).toContain('lib/reconcile/handler/reconcile-handler.ts');
    expect(graph.get('lib/reconcile/handler/reconcile-handler.ts')).toContain('lib/kube/request-counter.ts');
  });
});

describe('importCycles', () => {
  const cases: { name: string; graph: Record<string, string[]>; cycles: string[][] }[] = [
    { name: 'a chain', graph: { a: ['b'], b: ['c'], c: [] }, cycles: [] },
    { name: 'two files', graph: { a: ['b'], b: ['a'] }, cycles: [['a', 'b']] },
    { name: 'a self-import', graph: { a: ['a'] }, cycles: [['a']] },
    {
      name: 'a ring of three beside a diamond',
      graph: { a: ['b'], b: ['c'], c: ['a', 'd'], d: [], e: ['f', 'g'], f: ['h'], g: ['h'], h: [] },
      cycles: [['a', 'b', 'c']],
    },
  ];
  it.each(cases)('$name', ({ graph: edges, cycles }) => {
    expect(importCycles(new Map(Object.entries(edges)))).toEqual(cycles);
  });
});
