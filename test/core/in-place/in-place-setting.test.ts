import { describe, expect, it } from 'vitest';
import {
  IN_PLACE_ANNOTATION,
  inPlaceModeOf,
  inPlaceSettingViolations,
} from '../../../lib/core/in-place/in-place-setting.ts';
import { validateDaemonSet } from '../../../lib/core/validation.ts';
import { aDaemonSet } from '../../support/builders.ts';

const withField = (inPlace: unknown, annotations?: Record<string, string>) =>
  aDaemonSet('agent', {
    updateStrategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 1, inPlace } as never },
    ...(annotations ? { annotations } : {}),
  });
const withAnnotation = (value: string) =>
  aDaemonSet('agent', { annotations: { [IN_PLACE_ANNOTATION]: value } });

describe('inPlaceModeOf', () => {
  it.each([
    ['unset', aDaemonSet('agent'), 'Never'],
    ['the field IfPossible', withField('IfPossible'), 'IfPossible'],
    ['the field Never', withField('Never'), 'Never'],
    ['the annotation IfPossible', withAnnotation('IfPossible'), 'IfPossible'],
    ['the annotation Never', withAnnotation('Never'), 'Never'],
    ['the field over the annotation', withField('Never', { [IN_PLACE_ANNOTATION]: 'IfPossible' }), 'Never'],
    ['an invalid field, as unset', withField('Sometimes'), 'Never'],
    ['an invalid annotation, as unset', withAnnotation('ifpossible'), 'Never'],
    [
      'a null field, as unset: the annotation counts',
      withField(null, { [IN_PLACE_ANNOTATION]: 'IfPossible' }),
      'IfPossible',
    ],
  ])('reads %s', (_, ds, mode) => {
    expect(inPlaceModeOf(ds)).toBe(mode);
  });
});

describe('inPlaceSettingViolations', () => {
  it.each([
    ['unset', aDaemonSet('agent')],
    ['the field IfPossible', withField('IfPossible')],
    ['the annotation Never', withAnnotation('Never')],
    ['a valid field over an invalid annotation', withField('IfPossible', { [IN_PLACE_ANNOTATION]: 'Maybe' })],
  ])('accepts %s', (_, ds) => {
    expect(inPlaceSettingViolations(ds)).toEqual([]);
    expect(validateDaemonSet(ds)).toEqual([]);
  });

  it.each([
    [
      'a field of another value',
      withField('Sometimes'),
      'spec.updateStrategy.rollingUpdate.inPlace',
      'Sometimes',
    ],
    ['a field of another type', withField(true), 'spec.updateStrategy.rollingUpdate.inPlace', true],
    [
      'an annotation in the wrong case',
      withAnnotation('ifpossible'),
      `metadata.annotations[${IN_PLACE_ANNOTATION}]`,
      'ifpossible',
    ],
    ['an empty annotation', withAnnotation(''), `metadata.annotations[${IN_PLACE_ANNOTATION}]`, ''],
  ])('refuses %s, and so does validateDaemonSet', (_, ds, field, value) => {
    const expected = {
      field,
      type: 'FieldValueNotSupported',
      message: 'supported values: "IfPossible", "Never"',
      value,
    };
    expect(inPlaceSettingViolations(ds)).toEqual([expected]);
    expect(validateDaemonSet(ds)).toEqual([expected]);
  });
});
