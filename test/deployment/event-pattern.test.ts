import { describe, expect, it } from 'vitest';
import { compileEventPattern, EventPatternError, matchesEventPattern } from '../support/aws/event-pattern.ts';

/** The EC2 event of the EventBridge documentation's examples, plus arrays and odd values. */
const ec2Event = {
  version: '0',
  id: 'ddddd4-aaaa-7777-4444-345dd43cc333',
  'detail-type': 'EC2 Instance State-change Notification',
  source: 'aws.ec2',
  account: '012345679012',
  time: '2017-10-02T16:24:49Z',
  region: 'us-east-1',
  resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'],
  detail: {
    'c-count': 5,
    'd-count': 3,
    'x-limit': 301.8,
    'source-ip': '10.0.0.33',
    'instance-id': 'i-000000aaaaaa00000',
    state: 'running',
    FileName: 'photo.PNG',
    flag: true,
    nothing: null,
    empty: '',
    tags: ['blue', 'green'],
    nested: { deeper: { name: 'x' } },
    employees: [
      { firstName: 'John', lastName: 'Doe' },
      { firstName: 'Anna', lastName: 'Smith' },
    ],
  },
};

type Row = [name: string, pattern: Record<string, unknown>, matches: boolean];

const rows: Row[] = [
  ['exact value', { source: ['aws.ec2'] }, true],
  ['exact value, other', { source: ['aws.s3'] }, false],
  ['array of values is OR', { source: ['aws.s3', 'aws.ec2'] }, true],
  ['fields are AND', { source: ['aws.ec2'], 'detail-type': ['Other'] }, false],
  ['case-sensitive', { source: ['AWS.EC2'] }, false],
  ['nested field', { detail: { state: ['running'] } }, true],
  ['nested field, other value', { detail: { state: ['stopped'] } }, false],
  ['deeply nested', { detail: { nested: { deeper: { name: ['x'] } } } }, true],
  ['missing field', { detail: { absent: ['running'] } }, false],
  [
    'event array: any element',
    { resources: ['arn:aws:ec2:us-east-1:123456789012:instance/i-000000aaaaaa00000'] },
    true,
  ],
  ['event array of strings', { detail: { tags: ['green', 'red'] } }, true],
  ['event array, no element', { detail: { tags: ['red'] } }, false],
  ['array of objects: one element', { detail: { employees: { firstName: ['Anna'] } } }, true],
  [
    'array of objects: same element',
    { detail: { employees: { firstName: ['Anna'], lastName: ['Smith'] } } },
    true,
  ],
  [
    'array of objects: never across elements',
    { detail: { employees: { firstName: ['Anna'], lastName: ['Doe'] } } },
    false,
  ],
  ['number exact', { detail: { 'c-count': [5] } }, true],
  ['number is not a string', { detail: { 'c-count': ['5'] } }, false],
  ['boolean exact', { detail: { flag: [true] } }, true],
  ['null exact', { detail: { nothing: [null] } }, true],
  ['empty string exact', { detail: { empty: [''] } }, true],
  ['prefix', { time: [{ prefix: '2017-10-02' }] }, true],
  ['prefix, other', { time: [{ prefix: '2018' }] }, false],
  ['prefix ignores numbers', { detail: { 'c-count': [{ prefix: '5' }] } }, false],
  ['prefix equals-ignore-case', { source: [{ prefix: { 'equals-ignore-case': 'AWS.E' } }] }, true],
  ['suffix', { detail: { FileName: [{ suffix: '.PNG' }] } }, true],
  ['suffix is case-sensitive', { detail: { FileName: [{ suffix: '.png' }] } }, false],
  [
    'suffix equals-ignore-case',
    { detail: { FileName: [{ suffix: { 'equals-ignore-case': '.png' } }] } },
    true,
  ],
  ['equals-ignore-case', { source: [{ 'equals-ignore-case': 'AWS.EC2' }] }, true],
  ['equals-ignore-case, other', { source: [{ 'equals-ignore-case': 'aws.ec' }] }, false],
  ['wildcard', { 'detail-type': [{ wildcard: 'EC2 * Notification' }] }, true],
  ['wildcard anchored', { 'detail-type': [{ wildcard: 'EC2 *' }] }, true],
  ['wildcard, other', { 'detail-type': [{ wildcard: '*Notice' }] }, false],
  ['wildcard escaped star is literal', { source: [{ wildcard: 'aws\\*' }] }, false],
  ['anything-but value', { detail: { state: [{ 'anything-but': 'initializing' }] } }, true],
  ['anything-but the value', { detail: { state: [{ 'anything-but': 'running' }] } }, false],
  ['anything-but list', { detail: { state: [{ 'anything-but': ['stopped', 'running'] }] } }, false],
  ['anything-but numbers', { detail: { 'c-count': [{ 'anything-but': [1, 2] }] } }, true],
  ['anything-but the number', { detail: { 'c-count': [{ 'anything-but': [5] }] } }, false],
  ['anything-but prefix', { detail: { state: [{ 'anything-but': { prefix: 'run' } }] } }, false],
  ['anything-but prefix, other', { detail: { state: [{ 'anything-but': { prefix: 'init' } }] } }, true],
  ['anything-but suffix', { detail: { FileName: [{ 'anything-but': { suffix: '.PNG' } }] } }, false],
  [
    'anything-but ignore case',
    { source: [{ 'anything-but': { 'equals-ignore-case': ['AWS.EC2'] } }] },
    false,
  ],
  ['anything-but wildcard', { source: [{ 'anything-but': { wildcard: 'aws.*' } }] }, false],
  ['anything-but needs the field', { detail: { absent: [{ 'anything-but': 'x' }] } }, false],
  ['anything-but on arrays: any other element', { detail: { tags: [{ 'anything-but': 'blue' }] } }, true],
  ['exists true', { detail: { state: [{ exists: true }] } }, true],
  ['exists true, absent', { detail: { absent: [{ exists: true }] } }, false],
  ['exists true on null', { detail: { nothing: [{ exists: true }] } }, true],
  ['exists true, not on an object', { detail: { nested: [{ exists: true }] } }, false],
  ['exists false', { detail: { absent: [{ exists: false }] } }, true],
  ['exists false, present', { detail: { state: [{ exists: false }] } }, false],
  ['exists false under a missing parent', { absent: { child: [{ exists: false }] } }, true],
  [
    'exists false, present in another array element',
    { detail: { employees: { firstName: [{ exists: false }] } } },
    false,
  ],
  ['numeric range', { detail: { 'c-count': [{ numeric: ['>', 0, '<=', 5] }] } }, true],
  ['numeric range, outside', { detail: { 'c-count': [{ numeric: ['>', 5] }] } }, false],
  ['numeric equals', { detail: { 'x-limit': [{ numeric: ['=', 3.018e2] }] } }, true],
  ['numeric needs a number', { detail: { state: [{ numeric: ['>', 0] }] } }, false],
  ['mixed values and operators', { detail: { state: ['stopped', { prefix: 'run' }] } }, true],
  ['$or: one branch', { $or: [{ source: ['aws.s3'] }, { detail: { state: ['running'] } }] }, true],
  ['$or: no branch', { $or: [{ source: ['aws.s3'] }, { detail: { state: ['stopped'] } }] }, false],
  [
    '$or is ANDed with siblings',
    { region: ['eu-west-1'], $or: [{ source: ['aws.ec2'] }, { account: ['1'] }] },
    false,
  ],
  ['$or nested', { detail: { $or: [{ 'c-count': [{ numeric: ['>', 10] }] }, { 'd-count': [3] }] } }, true],
];

describe('EventBridge event patterns', () => {
  it.each(rows)('%s', (_name, pattern, expected) => {
    expect(matchesEventPattern(pattern, ec2Event)).toBe(expected);
  });

  it('matches the trigger-bus patterns of the synthesized template', () => {
    const relayRule = 'arn:aws:events:us-east-1:111122223333:rule/Everynode-TriggersRelaySchedule7B94C55E';
    const toRelay = { source: ['aws.events'], resources: [relayRule] };
    const scheduled = {
      source: 'aws.events',
      'detail-type': 'Scheduled Event',
      resources: [relayRule],
      detail: {},
    };
    expect(matchesEventPattern(toRelay, scheduled)).toBe(true);
    expect(matchesEventPattern(toRelay, { ...scheduled, resources: [`${relayRule}x`] })).toBe(false);
    const ec2 = { source: ['aws.ec2'], 'detail-type': ['EC2 Instance State-change Notification'] };
    expect(matchesEventPattern(ec2, ec2Event)).toBe(true);
    expect(
      matchesEventPattern({ source: ['everynode.relay', 'aws.ec2'] }, { source: 'everynode.relay' }),
    ).toBe(true);
  });

  const invalid: Array<[string, unknown]> = [
    ['an operator it does not implement', { detail: { 'source-ip': [{ cidr: '10.0.0.0/24' }] } }],
    ['an unknown operator', { source: [{ contains: 'ec2' }] }],
    ['an unknown anything-but operator', { source: [{ 'anything-but': { numeric: ['>', 1] } }] }],
    ['an operator object with two keys', { source: [{ prefix: 'a', suffix: 'b' }] }],
    ['a bare value instead of an array', { source: 'aws.ec2' }],
    ['an empty value array', { source: [] }],
    ['a malformed numeric', { detail: { n: [{ numeric: ['>', 'five'] }] } }],
    ['a numeric range the wrong way round', { detail: { n: [{ numeric: ['<', 5, '>', 1] }] } }],
    ['consecutive wildcards', { source: [{ wildcard: 'a**b' }] }],
    ['a bad wildcard escape', { source: [{ wildcard: 'a\\b' }] }],
    ['mixed anything-but types', { source: [{ 'anything-but': ['a', 1] }] }],
    ['exists without a boolean', { source: [{ exists: 'yes' }] }],
    ['$or with one branch', { $or: [{ source: ['a'] }] }],
    ['a pattern that is not an object', ['source']],
  ];

  it.each(invalid)('throws for %s, even where the event would not reach it', (_name, pattern) => {
    expect(() => compileEventPattern(pattern)).toThrow(EventPatternError);
    expect(() => matchesEventPattern(pattern, { unrelated: 1 })).toThrow(EventPatternError);
  });
});
