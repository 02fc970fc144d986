/**
 * The selector grammar shared by the simulated API server and the annotations that carry selectors:
 * value sets as apimachinery's labels.Parse reads them (selector_test.go TestLexerSequence and
 * TestParserLookahead cases for sets).
 */
import { describe, expect, it } from 'vitest';
import { LabelSelectorSyntaxError, parseLabelRequirements } from '../../lib/core/label-selector-grammar.ts';

const parse = (text: string) => [...parseLabelRequirements(text)];

describe('parseLabelRequirements value sets', () => {
  it.each([
    { text: 'k in (a,b)', values: ['a', 'b'] },
    { text: 'k in(a)', values: ['a'] },
    { text: 'k in ()', values: [''] },
    { text: 'k in (,a)', values: ['', 'a'] },
    { text: 'k in (a,)', values: ['a', ''] },
    { text: 'k in (a,,b)', values: ['a', '', 'b'] },
    { text: 'k notin (a,a)', values: ['a'] },
  ])('reads $text as the set $values', ({ text, values }) => {
    expect(parse(text).map((r) => r.values)).toEqual([values]);
  });

  it.each([
    { text: 'k in (a b)', message: "unable to parse requirement: found 'b', expected: ',' or ')'" },
    { text: 'k in (a', message: "unable to parse requirement: found '', expected: ',' or ')'" },
    { text: 'k in (a=b)', message: "unable to parse requirement: found '=', expected: ',' or ')'" },
    { text: 'k in (=)', message: "unable to parse requirement: found '=', expected: ',', ')' or identifier" },
    { text: 'k in a', message: "unable to parse requirement: found 'a', expected: '('" },
  ])('refuses $text', ({ text, message }) => {
    expect(() => parse(text)).toThrow(LabelSelectorSyntaxError);
    expect(() => parse(text)).toThrow(message);
  });
});
