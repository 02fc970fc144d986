import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parseTokenFile, readTokenFile, TokenFileError } from '../../../lib/sim/auth/token-file.ts';

const dir = mkdtempSync(join(tmpdir(), 'everynode-tokens-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('parseTokenFile', () => {
  it.each([
    {
      name: 'token, user and uid without groups',
      text: 'abc,alice,1001\n',
      users: { abc: { name: 'alice', uid: '1001', groups: [] } },
    },
    {
      name: 'a quoted 4th column of comma-separated groups',
      text: 'abc,alice,1001,"dev,ops"\n',
      users: { abc: { name: 'alice', uid: '1001', groups: ['dev', 'ops'] } },
    },
    {
      name: 'one unquoted group, columns past the 4th ignored',
      text: 'abc,alice,1001,dev,whatever\n',
      users: { abc: { name: 'alice', uid: '1001', groups: ['dev'] } },
    },
    {
      name: 'blank lines and CRLF line ends, no newline at the end',
      text: '\r\nabc,alice,1\r\n\r\n\ndef,bob,2',
      users: { abc: { name: 'alice', uid: '1', groups: [] }, def: { name: 'bob', uid: '2', groups: [] } },
    },
    {
      name: 'doubled quotes inside a quoted field',
      text: '"a""b",alice,1\n',
      users: { 'a"b': { name: 'alice', uid: '1', groups: [] } },
    },
    {
      name: 'a record with an empty token skipped',
      text: ',nobody,0\nabc,alice,1\n',
      users: { abc: { name: 'alice', uid: '1', groups: [] } },
    },
    {
      name: 'a later record of the same token wins',
      text: 'abc,alice,1\nabc,bob,2\n',
      users: { abc: { name: 'bob', uid: '2', groups: [] } },
    },
    {
      name: 'an empty 4th column: one empty group, as strings.Split gives',
      text: 'abc,alice,1,\n',
      users: { abc: { name: 'alice', uid: '1', groups: [''] } },
    },
    {
      name: 'spaces kept as they are (no trimming)',
      text: 'abc, alice,1\n',
      users: { abc: { name: ' alice', uid: '1', groups: [] } },
    },
  ])('reads $name', ({ text, users }) => {
    expect(Object.fromEntries(parseTokenFile(text, 'tokens.csv'))).toEqual(users);
  });

  it.each([
    {
      name: 'a record of two columns',
      text: 'abc,alice,1\nabc,bob\n',
      message: "token file 'tokens.csv' must have at least 3 columns (token, user name, user uid), found 2",
    },
    {
      name: 'a comment line (Go csv has no comments by default)',
      text: '# tokens\nabc,alice,1\n',
      message: 'must have at least 3 columns (token, user name, user uid), found 1',
    },
    {
      name: 'a bare quote in an unquoted field',
      text: 'abc,al"ice,1\n',
      message: 'parse error on line 1: bare " in non-quoted-field',
    },
    {
      name: 'an unterminated quoted field',
      text: 'abc,alice,1\nabc,"bob,1\n',
      message: 'parse error on line 2: extraneous or missing " in quoted-field',
    },
    {
      name: 'text after a closing quote',
      text: 'abc,"bob"x,1\n',
      message: 'parse error on line 1: extraneous or missing " in quoted-field',
    },
  ])('rejects $name', ({ text, message }) => {
    expect(() => parseTokenFile(text, 'tokens.csv')).toThrow(TokenFileError);
    expect(() => parseTokenFile(text, 'tokens.csv')).toThrow(message);
  });
});

describe('readTokenFile', () => {
  it('reads the file at the path', async () => {
    const path = join(dir, 'tokens.csv');
    writeFileSync(path, 'abc,alice,1001,"dev"\n');
    expect(Object.fromEntries(await readTokenFile(path))).toEqual({
      abc: { name: 'alice', uid: '1001', groups: ['dev'] },
    });
  });

  it('says which file it could not read, with the cause, and that retrying will not help', async () => {
    const path = join(dir, 'missing.csv');
    const error = await readTokenFile(path).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TokenFileError);
    expect(error).toMatchObject({ message: `reading the token file '${path}'`, retryable: false });
    expect((error as Error).cause).toMatchObject({ code: 'ENOENT' });
  });
});
