import { readdirSync, readFileSync } from 'node:fs';
import * as clientNode from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { controllerRevisionFor } from '../../../lib/core/controller-revision.ts';
import { daemonPodFor } from '../../../lib/core/daemon-pod.ts';
import { eventFor } from '../../../lib/kube/operations/event-for.ts';
import { fieldValidationOf } from '../../../lib/sim/apiserver/api-field-validation.ts';
import { goValueString } from '../../../lib/sim/apiserver/api-go-format.ts';
import { strictErrorText, strictJsonErrors } from '../../../lib/sim/apiserver/api-strict-json.ts';
import { typeClosure } from '../../../lib/sim/schema/openapi-types.ts';
import type { ResourceKey } from '../../../lib/sim/schema/resources.ts';
import { fieldSchemaOf } from '../../../lib/sim/schema/store-field-schema.ts';
import { toWireJson } from '../../../lib/sim/schema/store-json.ts';
import { pruneUnknownFields } from '../../../lib/sim/schema/store-unknown-fields.ts';
import { aDaemonSet, aNode, aPod } from '../../support/builders.ts';

/** The strict-decoding error texts of `body` as an object of `key`. */
const errorsOf = (key: ResourceKey, body: string): string[] =>
  strictJsonErrors(body, fieldSchemaOf(key)).map(strictErrorText);

/** The unknown fields of `obj` (a copy is pruned). */
const unknownIn = (key: ResourceKey, obj: unknown): string[] =>
  pruneUnknownFields(key, toWireJson(obj) as Record<string, unknown>);

describe('field schemas for server-side field validation', () => {
  it('know exactly the fields of the @kubernetes/client-node models for every served built-in kind', () => {
    const models = clientNode as unknown as Record<
      string,
      { getAttributeTypeMap?: () => { baseName: string }[] }
    >;
    const roots = ['Pod', 'Node', 'Namespace', 'Event', 'DaemonSet', 'ControllerRevision'];
    const mismatches = typeClosure(roots).flatMap((spec) => {
      const model = models[`V1${spec.name}`] ?? models[`CoreV1${spec.name}`];
      const expected = (model?.getAttributeTypeMap?.() ?? []).map((a) => a.baseName).sort();
      const actual = [...spec.fields.keys()].sort();
      return JSON.stringify(expected) === JSON.stringify(actual)
        ? []
        : [{ type: spec.name, expected, actual }];
    });
    expect(mismatches).toEqual([]);
  });

  const scanCases: { name: string; key: ResourceKey; body: string; errors: string[] }[] = [
    {
      name: 'unknown and duplicate fields in document order (the conformance test body)',
      key: 'apps/daemonsets',
      body: '{"spec":{"unknownField":"foo","minReadySeconds":2,"minReadySeconds":3}}',
      errors: ['unknown field "spec.unknownField"', 'duplicate field "spec.minReadySeconds"'],
    },
    {
      name: 'list items are indexed',
      key: 'pods',
      body: '{"spec":{"containers":[{"name":"a"},{"name":"b","ports":[{"containerPortZ":80}]}]}}',
      errors: ['unknown field "spec.containers[1].ports[0].containerPortZ"'],
    },
    {
      name: 'an unknown field is reported once, not what lies below it',
      key: 'pods',
      body: '{"spec":{"extra":{"a":1,"b":{"c":2}}},"metadata":{"unknownMeta":"x"}}',
      errors: ['unknown field "spec.extra"', 'unknown field "metadata.unknownMeta"'],
    },
    {
      name: 'duplicate keys of maps are reported with their path',
      key: 'nodes',
      body: '{"metadata":{"labels":{"a":"1","a":"2"}}}',
      errors: ['duplicate field "metadata.labels.a"'],
    },
    {
      name: 'free-form fields (ControllerRevision data) know no unknown fields but do see duplicates',
      key: 'apps/controllerrevisions',
      body: '{"data":{"spec":{"anything":{"x":1,"x":2}}},"revision":1}',
      errors: ['duplicate field "data.spec.anything.x"'],
    },
    {
      name: 'escaped keys are compared by value',
      key: 'events',
      body: '{"reason":"a","re\\u0061son":"b","\\"odd\\"":1}',
      errors: ['duplicate field "reason"', 'unknown field "\\"odd\\""'],
    },
    {
      name: 'custom resources: pruned by the CRD schema, the preserved pod template kept',
      key: 'everynode.dev/daemonsets',
      body: '{"spec":{"template":{"spec":{"anything":1}},"updateStrategy":{"rollingUpdate":{"partiton":1}}}}',
      errors: ['unknown field "spec.updateStrategy.rollingUpdate.partiton"'],
    },
  ];

  it.each(scanCases)('scans JSON bodies: $name', ({ key, body, errors }) => {
    expect(errorsOf(key, body)).toEqual(errors);
  });

  it('deduplicates repeated errors and stops at 100, as the decoder does', () => {
    const items = Array.from({ length: 150 }, (_, i) => `{"name":"c${i}","imagee":"x","imagee":"y"}`);
    const errors = errorsOf('pods', `{"spec":{"containers":[${items.join(',')}]}}`);
    expect(errors).toHaveLength(100);
    expect(new Set(errors).size).toBe(100);
  });

  it('prunes unknown fields in place; custom resources report metadata first, then the rest sorted', () => {
    const cr = {
      spec: { zeta: 1, alpha: 2, template: { spec: { kept: true } } },
      metadata: { name: 'x', bogus: 1 },
    };
    expect(pruneUnknownFields('everynode.dev/daemonsets', cr)).toEqual([
      'metadata.bogus',
      'spec.alpha',
      'spec.zeta',
    ]);
    expect(cr).toEqual({ spec: { template: { spec: { kept: true } } }, metadata: { name: 'x' } });
  });

  it('leaves every object the project creates intact: fixtures, builders, daemon pods, revisions, events', () => {
    const fixtures = ['test/fixtures', 'lib/sim/fixtures']
      .flatMap((dir) => readdirSync(dir).map((f) => `${dir}/${f}`))
      .filter((f) => f.endsWith('.yaml'))
      .flatMap((f) => parseAllDocuments(readFileSync(f, 'utf8')).map((d) => d.toJS()))
      .flatMap((doc: { kind?: string; items?: unknown[] }) =>
        doc.kind === 'List' ? (doc.items ?? []) : [doc],
      );
    const keyOf: Record<string, ResourceKey> = { DaemonSet: 'apps/daemonsets', Node: 'nodes', Pod: 'pods' };
    const ds = aDaemonSet('agent', { tolerations: [{ operator: 'Exists' }], nodeSelector: { a: 'b' } });
    const objects: [ResourceKey, unknown][] = [
      ...fixtures.map((f): [ResourceKey, unknown] => [keyOf[(f as { kind: string }).kind] ?? 'pods', f]),
      ['nodes', aNode('n1', { taints: [{ key: 'k', effect: 'NoSchedule' }], unschedulable: true })],
      ['apps/daemonsets', ds],
      ['everynode.dev/daemonsets', { ...ds, apiVersion: 'everynode.dev/v1' }],
      ['pods', aPod('p', { owner: ds, nodeName: 'n1', phase: 'Running' })],
      ['pods', daemonPodFor(ds, 'n1', 'abc123')],
      ['apps/controllerrevisions', controllerRevisionFor(ds, 1)],
      [
        'events',
        eventFor({
          involvedObject: {
            apiVersion: 'apps/v1',
            kind: 'DaemonSet',
            namespace: 'default',
            name: 'agent',
            uid: 'u',
          },
          type: 'Normal',
          reason: 'SuccessfulCreate',
          message: 'Created pod',
          now: new Date('2026-01-01T00:00:00Z'),
        }),
      ],
    ];
    expect(fixtures.length).toBeGreaterThan(3);
    expect(objects.flatMap(([key, obj]) => unknownIn(key, obj))).toEqual([]);
  });
});

describe('the fieldValidation parameter and the messages around it', () => {
  it.each([
    { query: '', directive: 'Warn' },
    { query: 'fieldValidation=', directive: 'Warn' },
    { query: 'fieldValidation=Strict', directive: 'Strict' },
    { query: 'fieldValidation=Ignore', directive: 'Ignore' },
  ])('reads "$query" as $directive (absent means Warn since 1.27)', ({ query, directive }) => {
    expect(fieldValidationOf(new URLSearchParams(query), 'CreateOptions')).toBe(directive);
  });

  it('refuses other values with 422 listing the supported ones', () => {
    const run = () => fieldValidationOf(new URLSearchParams('fieldValidation=strict'), 'PatchOptions');
    expect(run).toThrow(
      'PatchOptions.meta.k8s.io "" is invalid: fieldValidation: Unsupported value: "strict": supported values: "", "Ignore", "Strict", "Warn"',
    );
  });

  it.each([
    {
      name: 'maps sorted, lists spaced',
      value: { b: [1, 'x'], a: { c: null } },
      text: 'map[a:map[c:<nil>] b:[1 x]]',
    },
    { name: 'floats as %v', value: [0.5, 1e-5, 2e21, true], text: '[0.5 1e-05 2e+21 true]' },
  ])('prints patch maps as Go %v does: $name', ({ value, text }) => {
    expect(goValueString(value)).toBe(text);
  });
});
