import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApiServer } from '../../../lib/sim/apiserver/api-server.ts';
import { ClusterStore } from '../../../lib/sim/storage/store.ts';
import { newDaemonSet } from '../../support/store-test-helpers.ts';

const store = new ClusterStore();
const server = createApiServer(store);
let url = '';

beforeAll(async () => {
  url = await server.listen();
});
afterAll(() => server.close());

const dsPath = '/apis/apps/v1/namespaces/default/daemonsets';
const edsPath = '/apis/everynode.dev/v1/namespaces/default/daemonsets';

/** What the server answered: status, Warning headers, and the JSON body. */
interface Answer {
  readonly status: number;
  readonly warnings: string[];
  readonly body: { message?: string; reason?: string; spec?: unknown; details?: { causes?: unknown[] } };
}

async function send(
  method: string,
  path: string,
  body: string,
  contentType = 'application/json',
): Promise<Answer> {
  const response = await fetch(`${url}${path}`, { method, body, headers: { 'Content-Type': contentType } });
  const warnings =
    response.headers
      .get('warning')
      ?.split(/,(?=\s*299 )/)
      .map((w) => w.trim()) ?? [];
  return { status: response.status, warnings, body: (await response.json()) as Answer['body'] };
}

/** A DaemonSet body as JSON text with `extra` spliced into its spec (so duplicate keys survive). */
function dsText(name: string, extra = ''): string {
  const text = JSON.stringify(newDaemonSet(name));
  return extra ? text.replace('"spec":{', `"spec":{${extra},`) : text;
}

describe('server-side field validation (fieldValidation=Strict|Warn|Ignore) over HTTP', () => {
  it('Strict refuses a create with unknown and duplicate fields with the decoder message', async () => {
    const answer = await send(
      'POST',
      `${dsPath}?fieldValidation=Strict`,
      dsText('strict-ds', '"unknownField":"foo","minReadySeconds":2,"minReadySeconds":3'),
    );
    expect(answer.status).toBe(400);
    expect(answer.body.reason).toBe('BadRequest');
    expect(answer.body.message).toBe(
      'DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "spec.unknownField", duplicate field "spec.minReadySeconds"',
    );
    expect(store.get('apps/daemonsets', 'default', 'strict-ds')).toBeUndefined();
  });

  it('Warn (also when absent) creates the object without the field and sends a 299 warning per problem', async () => {
    for (const [name, query] of [
      ['warn-ds', '?fieldValidation=Warn'],
      ['default-ds', ''],
    ] as const) {
      const answer = await send(
        'POST',
        `${dsPath}${query}`,
        dsText(name, '"bogus":1,"minReadySeconds":2,"minReadySeconds":3'),
      );
      expect(answer.status).toBe(201);
      expect(answer.warnings).toEqual([
        '299 - "unknown field \\"spec.bogus\\""',
        '299 - "duplicate field \\"spec.minReadySeconds\\""',
      ]);
      const stored = store.get('apps/daemonsets', 'default', name)?.spec as Record<string, unknown>;
      expect(stored.bogus).toBeUndefined();
      expect(stored.minReadySeconds).toBe(3);
    }
  });

  it('Ignore creates the object without the field and says nothing', async () => {
    const answer = await send('POST', `${dsPath}?fieldValidation=Ignore`, dsText('ignore-ds', '"bogus":1'));
    expect(answer.status).toBe(201);
    expect(answer.warnings).toEqual([]);
    expect((answer.body.spec as Record<string, unknown>).bogus).toBeUndefined();
  });

  it('refuses an unsupported directive before reading the body', async () => {
    const answer = await send('POST', `${dsPath}?fieldValidation=strict`, dsText('bad-directive-ds'));
    expect(answer.status).toBe(422);
    expect(answer.body.message).toContain('fieldValidation: Unsupported value: "strict"');
  });

  it('Strict refuses a PUT whose metadata has an unknown field', async () => {
    const current = store.get('apps/daemonsets', 'default', 'ignore-ds');
    const body = JSON.stringify({ ...current, metadata: { ...current?.metadata, unknownMeta: 'x' } });
    const answer = await send('PUT', `${dsPath}/ignore-ds?fieldValidation=Strict`, body);
    expect(answer.status).toBe(400);
    expect(answer.body.message).toContain('strict decoding error: unknown field "metadata.unknownMeta"');
  });

  it('Strict refuses a strategic merge patch adding an unknown field with 422 on `patch`, as kubectl apply sees it', async () => {
    const patch = '{"spec":{"template":{"spec":{"containers":[{"name":"main","imagee":"x"}]}}}}';
    const answer = await send(
      'PATCH',
      `${dsPath}/warn-ds?fieldValidation=Strict`,
      patch,
      'application/strategic-merge-patch+json',
    );
    expect(answer.status).toBe(422);
    expect(answer.body.reason).toBe('Invalid');
    expect(answer.body.message).toBe(
      ' "" is invalid: patch: Invalid value: "map[spec:map[template:map[spec:map[containers:[map[imagee:x name:main]]]]]]": strict decoding error: unknown field "spec.template.spec.containers[0].imagee"',
    );
    expect(answer.body.details?.causes).toEqual([
      expect.objectContaining({ reason: 'FieldValueInvalid', field: 'patch' }),
    ]);
  });

  it('Warn applies patches without the unknown fields; duplicate keys of the patch itself are reported first', async () => {
    const patch = '{"metadata":{"labels":{"a":"1","a":"2"}},"spec":{"bogus":true}}';
    const answer = await send('PATCH', `${dsPath}/warn-ds`, patch, 'application/merge-patch+json');
    expect(answer.status).toBe(200);
    expect(answer.warnings).toEqual([
      '299 - "duplicate field \\"metadata.labels.a\\""',
      '299 - "unknown field \\"spec.bogus\\""',
    ]);
    const stored = store.get('apps/daemonsets', 'default', 'warn-ds');
    expect(stored?.metadata.labels).toEqual({ a: '2' });
    expect(stored?.spec).not.toHaveProperty('bogus');
  });

  it('JSON patches: unknown keys of an operation and unknown fields it adds are both reported', async () => {
    const patch = '[{"op":"add","path":"/spec/bogus","value":1,"valu":2}]';
    const answer = await send('PATCH', `${dsPath}/warn-ds`, patch, 'application/json-patch+json');
    expect(answer.status).toBe(200);
    expect(answer.warnings).toEqual([
      '299 - "json patch unknown field \\"[0].valu\\""',
      '299 - "unknown field \\"spec.bogus\\""',
    ]);
  });

  it('custom resources: fields outside the CRD schema are refused, the preserved pod template is not', async () => {
    const cr = { ...newDaemonSet('eds-strict'), apiVersion: 'everynode.dev/v1' };
    const typo = JSON.stringify(cr).replace('"updateStrategy":{', '"updateStrategy":{"partiton":1,');
    const refused = await send('POST', `${edsPath}?fieldValidation=Strict`, typo);
    expect(refused.status).toBe(400);
    expect(refused.body.message).toBe(
      'DaemonSet in version "v1" cannot be handled as a DaemonSet: strict decoding error: unknown field "spec.updateStrategy.partiton"',
    );
    const preserved = JSON.stringify(cr).replace('"containers":[', '"futureField":1,"containers":[');
    const created = await send('POST', `${edsPath}?fieldValidation=Strict`, preserved);
    expect(created.status).toBe(201);
    expect(JSON.stringify(created.body.spec)).toContain('"futureField":1');
  });

  it('in-process writes drop unknown fields silently, as decoding does', () => {
    const created = store.create('apps/daemonsets', {
      ...newDaemonSet('in-process'),
      spec: { ...(newDaemonSet('in-process').spec as object), bogus: 1 },
    });
    expect((created.spec as Record<string, unknown>).bogus).toBeUndefined();
  });
});
