import { describe, expect, it } from 'vitest';
import { besides, layers, subLayers } from './layer-order.ts';
import { importCycles, importGraph, sourceFiles } from './source-imports.ts';

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

/** `file`'s sub-folder of a runtime in {@link subLayers} (`lib/reconcile/handler`), or undefined. */
function subUnitOf(file: string): string | undefined {
  const runtime = unitOf(file);
  if (subLayers[runtime] === undefined) return undefined;
  return `${runtime}/${file.slice(runtime.length + 1).split('/')[0]}`;
}

/** Whether sub-folder `from` may import sub-folder `to` of the same runtime. */
function subMayImport(from: string, to: string): boolean {
  if (from === to) return true;
  const rows = subLayers[unitOf(from)] ?? [];
  const rowOf = (unit: string) => rows.findIndex((row) => row.includes(unit.split('/')[2] ?? ''));
  const [fromRow, toRow] = [rowOf(from), rowOf(to)];
  return fromRow >= 0 && toRow > fromRow;
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

  it('keeps every file of reconcile and relay in a sub-folder it names', () => {
    const strays = files.filter((file) => {
      const sub = subUnitOf(file);
      if (sub === undefined) return false;
      const rows = subLayers[unitOf(file)] ?? [];
      return sub.endsWith('.ts') || !rows.flat().includes(sub.split('/')[2] ?? '');
    });
    expect(strays).toEqual([]);
  });

  it('has no import between the sub-folders of reconcile or relay that points up or sideways', () => {
    const violations = [...graph].flatMap(([file, targets]) => {
      const from = subUnitOf(file);
      if (from === undefined) return [];
      return targets
        .filter((target) => unitOf(target) === unitOf(file))
        .filter((target) => !subMayImport(from, subUnitOf(target) ?? ''))
        .map((target) => `${file} -> ${target}`);
    });
    expect(violations).toEqual([]);
  });

  it('tells a step importing another step from an import down the rows', () => {
    expect(subMayImport('lib/reconcile/node-step', 'lib/reconcile/pair-step')).toBe(false);
    expect(subMayImport('lib/reconcile/memory', 'lib/reconcile/effects')).toBe(false);
    expect(subMayImport('lib/reconcile/handler', 'lib/reconcile/memory')).toBe(true);
    expect(subMayImport('lib/relay/run', 'lib/relay/setup')).toBe(true);
    expect(subMayImport('lib/relay/output', 'lib/relay/filters')).toBe(false);
  });

  it('has no import cycle', () => {
    expect(importCycles(graph)).toEqual([]);
  });

  it('is read from the sources: the graph has the edges the handlers are built from', () => {
    expect(graph.get('functions/reconcile/index.ts')).toContain('lib/reconcile/handler/reconcile-handler.ts');
    expect(graph.get('lib/reconcile/handler/reconcile-handler.ts')).toContain(
      'lib/kube/requests/request-counter.ts',
    );
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
