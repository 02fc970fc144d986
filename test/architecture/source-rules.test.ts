import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { repoRoot, sourceFiles } from './source-imports.ts';

const linesOf = (file: string) => readFileSync(join(repoRoot, file), 'utf8').split('\n').length;

/**
 * What a comment may not cite: the repository stands alone, so a reason the code relies on is
 * written in docs/design.md (or names the upstream function it ports), never in a document or an
 * issue a later reader does not have. Built from parts so this file does not match itself.
 */
const outsideCitation = new RegExp(
  [
    'DESIGN\\.md',
    '\\.\\./shared',
    '\\b[Ii]ssue [0-9]+',
    '[Dd]esign decision [0-9]+',
    '[Pp]ipeline design [0-9]+',
  ].join('|'),
);

describe('the sources', () => {
  it('keep every file of lib, functions and infra within 300 lines', () => {
    const long = sourceFiles(['lib', 'functions', 'infra'])
      .map((file) => `${file}: ${linesOf(file)}`)
      .filter((entry) => Number(entry.split(': ')[1]) > 300);
    expect(long).toEqual([]);
  });

  it('cite no document outside the repository and no issue', () => {
    const cites = sourceFiles(['lib', 'functions', 'infra', 'test'])
      .flatMap((file) =>
        readFileSync(join(repoRoot, file), 'utf8')
          .split('\n')
          .map((line, index) => ({ file, line, index }))
          .filter(({ line }) => outsideCitation.test(line) && !line.includes('docs/design.md')),
      )
      .map(({ file, line, index }) => `${file}:${index + 1}: ${line.trim()}`);
    expect(cites).toEqual([]);
  });

  it('recognise a citation of an outside document', () => {
    const n = 4; // the samples are built so that this file does not cite anything itself
    const samples = [
      `(DESIGN${'.md'} §${n})`,
      `see issue ${n}`,
      `pipeline design decision ${n}`,
      `pipeline design ${n}`,
    ];
    expect(samples.filter((sample) => !outsideCitation.test(sample))).toEqual([]);
    expect(outsideCitation.test('docs/design.md, 15. The DaemonSet step')).toBe(false);
  });
});
