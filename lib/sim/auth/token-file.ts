/**
 * kube-apiserver's `--token-auth-file`: a CSV of static bearer tokens, one user a record —
 * `token,user,uid[,"group1,group2"]` — read as tokenfile.NewCSV reads it (k8s.io/apiserver
 * pkg/authentication/token/tokenfile) with Go's encoding/csv defaults: blank lines are skipped,
 * there are no comments (a `#` line is a record like any other), fields may be quoted with `""`
 * for a quote, a record needs at least 3 fields, one with an empty token is skipped, a later
 * record of the same token replaces an earlier one.
 */
import { readFile } from 'node:fs/promises';
import { EverynodeError } from '../../errors/everynode-error.ts';
import type { UserInfo } from './user-info.ts';

/** A token file that cannot be read or does not parse. Not retryable: the file must be fixed. */
export class TokenFileError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, false, options);
  }
}

/** The users of a token file by their bearer token. */
export type TokenTable = ReadonlyMap<string, UserInfo>;

interface Parsed<T> {
  readonly value: T;
  /** Index just past what was read. */
  readonly next: number;
}

/** Go's csv.ErrQuote / csv.ErrBareQuote, with the line they are on. */
function csvError(line: number, what: string): Error {
  return new Error(`parse error on line ${line}: ${what}`);
}

/** The quoted field whose opening quote is just before `start`; `""` is one quote, newlines are kept. */
function quotedField(text: string, start: number, line: number): Parsed<string> {
  let value = '';
  let pos = start;
  for (;;) {
    const close = text.indexOf('"', pos);
    if (close < 0) throw csvError(line, 'extraneous or missing " in quoted-field');
    value += text.slice(pos, close);
    if (text[close + 1] === '"') {
      value += '"';
      pos = close + 2;
      continue;
    }
    const after = text[close + 1];
    if (after === undefined || after === ',' || after === '\n') return { value, next: close + 1 };
    throw csvError(line, 'extraneous or missing " in quoted-field');
  }
}

/** The record starting at `start` (not a blank line); `next` is past its newline. */
function record(text: string, start: number, line: number): Parsed<string[]> {
  const fields: string[] = [];
  let pos = start;
  for (;;) {
    if (text[pos] === '"') {
      const field = quotedField(text, pos + 1, line);
      fields.push(field.value);
      pos = field.next;
    } else {
      let end = pos;
      while (end < text.length && text[end] !== ',' && text[end] !== '\n') end++;
      const field = text.slice(pos, end);
      if (field.includes('"')) throw csvError(line, 'bare " in non-quoted-field');
      fields.push(field);
      pos = end;
    }
    if (text[pos] !== ',') return { value: fields, next: pos + 1 };
    pos++;
  }
}

/**
 * The records of CSV `text` as Go's csv.Reader with FieldsPerRecord = -1 reads them: `\r\n` is a
 * newline, blank lines are skipped; throws on a stray quote.
 */
export function csvRecords(text: string): string[][] {
  const normalized = text.replace(/\r\n/g, '\n').replace(/\r$/, '');
  const records: string[][] = [];
  let pos = 0;
  let line = 1;
  while (pos < normalized.length) {
    if (normalized[pos] === '\n') {
      pos++;
      line++;
      continue;
    }
    const parsed = record(normalized, pos, line);
    records.push(parsed.value);
    line += normalized.slice(pos, parsed.next).split('\n').length - 1;
    pos = parsed.next;
  }
  return records;
}

/**
 * The token table of token file `text` read from `path` (named in errors); throws a TokenFileError
 * for a record of fewer than 3 fields or a CSV syntax error.
 */
export function parseTokenFile(text: string, path: string): TokenTable {
  let records: string[][];
  try {
    records = csvRecords(text);
  } catch (error) {
    throw new TokenFileError(`reading the token file '${path}': ${(error as Error).message}`, {
      cause: error,
    });
  }
  const tokens = new Map<string, UserInfo>();
  for (const fields of records) {
    if (fields.length < 3) {
      throw new TokenFileError(
        `token file '${path}' must have at least 3 columns (token, user name, user uid), ` +
          `found ${fields.length}`,
      );
    }
    const [token = '', name = '', uid = '', groups] = fields;
    if (token === '') continue;
    // strings.Split upstream: an empty 4th field is one group named "", as on a real server.
    tokens.set(token, { name, uid, groups: groups === undefined ? [] : groups.split(',') });
  }
  return tokens;
}

/** The token table of the token file at `path`; throws a TokenFileError when it cannot be read or parsed. */
export async function readTokenFile(path: string): Promise<TokenTable> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new TokenFileError(`reading the token file '${path}'`, { cause: error });
  }
  return parseTokenFile(text, path);
}
