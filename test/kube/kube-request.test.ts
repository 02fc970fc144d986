/**
 * The adapter's requests (kube-request.ts) against client-node's generated API clients, which the
 * adapter used before: for every KubePort operation the tiny server must receive the very request
 * the generated operation sends (method, path, query in its order, headers, body bytes), the
 * answer must decode to the same value, and an error answer must reject with the same ApiException.
 */
import type { Configuration } from '@kubernetes/client-node';
import {
  CoreV1ApiRequestFactory,
  CoreV1ApiResponseProcessor,
} from '@kubernetes/client-node/dist/gen/apis/CoreV1Api.js';
import {
  ObjectAppsV1Api,
  ObjectCoreV1Api,
  ObjectCustomObjectsApi,
} from '@kubernetes/client-node/dist/gen/types/ObjectParamAPI.js';
import { describe, expect, it } from 'vitest';
import { decodeModel } from '../../lib/kube/codec/model-decoder.ts';
import { toJson } from '../../lib/kube/codec/object-codec.ts';
import { connectionFromKubeConfig, loadKubeConfig } from '../../lib/kube/connection/kubeconfig-connection.ts';
import type { KubePort } from '../../lib/kube/kube-port.ts';
import type { ManagedKind } from '../../lib/kube/managed-kind.ts';
import { createKubePort } from '../../lib/kube/operations/create-kube-port.ts';
import { callOptions, kubeConfigurationFor } from '../../lib/kube/requests/kube-apis.ts';
import { sendKubeRequest } from '../../lib/kube/requests/kube-request.ts';
import { RequestBudget } from '../../lib/kube/requests/request-budget.ts';
import { RequestCounter } from '../../lib/kube/requests/request-counter.ts';
import { aDaemonSet, aNode, aPod } from '../support/builders.ts';
import { type Answer, statusBody, useTinyApiServer } from './tiny-api-server.ts';
import { kubeconfigFor } from './tiny-kube-port.ts';

const server = useTinyApiServer();

/** The port and the generated clients over one connection, hooks and User-Agent alike. */
function clients(managedKind: ManagedKind) {
  const connection = connectionFromKubeConfig(loadKubeConfig({ yaml: kubeconfigFor(server.url) }));
  const hooks = {
    budget: new RequestBudget({ requestsPerSecond: 1000, burst: 1000 }),
    counter: new RequestCounter(),
    userAgent: 'everynode/test',
  };
  const port = createKubePort({ connection, managedKind, ...hooks });
  const configuration: Configuration = kubeConfigurationFor(connection, hooks);
  return {
    port,
    configuration,
    core: new ObjectCoreV1Api(configuration),
    apps: new ObjectAppsV1Api(configuration),
    custom: new ObjectCustomObjectsApi(configuration),
    coreRequests: new CoreV1ApiRequestFactory(configuration),
    coreResponses: new CoreV1ApiResponseProcessor(),
  };
}

type Clients = ReturnType<typeof clients>;

/** The request the server received last, without what names the connection. */
function lastRequest() {
  const { method, url, headers, body } = server.requests.at(-1) ?? { method: '', url: '', headers: {} };
  const { host: _host, connection: _connection, ...rest } = headers;
  return { method, url, headers: rest, body };
}

const rv0 = callOptions({ query: { resourceVersion: '0' } });
const list = { _continue: 'c1', fieldSelector: 'f=1', labelSelector: 'l=1', limit: 5 };
const listOptions = { continue: 'c1', fieldSelector: 'f=1', labelSelector: 'l=1', limit: 5 };
const notOlder = { ...list, resourceVersion: '42', resourceVersionMatch: 'NotOlderThan' };
const listAnswer = { items: [], metadata: { resourceVersion: '9' } };
const jsonPatch = [
  { op: 'test', path: '/metadata/uid', value: 'u1' },
  { op: 'replace', path: '/spec/containers/0/image', value: 'busybox:1.37' },
] as const;
const everynode = { group: 'everynode.dev', version: 'v1', plural: 'daemonsets' };
const owner = { apiVersion: 'apps/v1', kind: 'DaemonSet', name: 'ds', uid: 'ds-uid', controller: true };
const revision = {
  apiVersion: 'apps/v1',
  kind: 'ControllerRevision',
  metadata: { name: 'ds-abc', namespace: 'ns', resourceVersion: '3', creationTimestamp: new Date(0) },
  revision: 2,
  data: { spec: { template: {} } },
};
const event = {
  metadata: { name: 'e1', namespace: 'ns' },
  involvedObject: { kind: 'DaemonSet', namespace: 'ns', name: 'ds' },
  reason: 'SuccessfulCreate',
  firstTimestamp: new Date(1000),
};

interface Case {
  name: string;
  kind?: ManagedKind;
  answer: unknown;
  /** The port operation; its answer is compared only when `same` is set. */
  port: (p: KubePort) => Promise<unknown>;
  /** What the adapter called before, for the same operation. */
  generated: (c: Clients) => Promise<unknown>;
  same?: boolean;
}

const cases: Case[] = [
  {
    name: 'a node from the watch cache',
    answer: aNode('n1'),
    port: (p) => p.getNode('n1', { allowStale: true }),
    generated: (c) => c.core.readNode({ name: 'n1' }, rv0),
  },
  {
    name: 'a node',
    answer: aNode('n1'),
    port: (p) => p.getNode('n1'),
    generated: (c) => c.core.readNode({ name: 'n1' }),
    same: true,
  },
  {
    name: 'the nodes',
    answer: listAnswer,
    port: (p) => p.listNodes({ ...listOptions, notOlderThan: '42' }),
    generated: (c) => c.core.listNode(notOlder),
  },
  {
    name: 'the pods of a namespace',
    answer: listAnswer,
    port: (p) => p.listPods({ ...listOptions, namespace: 'ns', allowStale: true }),
    generated: (c) => c.core.listNamespacedPod({ ...list, namespace: 'ns', resourceVersion: '0' }),
  },
  {
    name: 'the pods of all namespaces',
    answer: listAnswer,
    port: (p) => p.listPods(listOptions),
    generated: (c) => c.core.listPodForAllNamespaces(list),
  },
  {
    name: 'a pod created',
    answer: aPod('p1'),
    port: (p) =>
      p.createPod({ ...aPod('p1'), metadata: { ...aPod('p1').metadata, creationTimestamp: new Date(0) } }),
    generated: (c) =>
      c.core.createNamespacedPod({
        namespace: 'default',
        body: { ...aPod('p1'), metadata: { ...aPod('p1').metadata, creationTimestamp: new Date(0) } },
      }),
  },
  {
    name: 'a pod deleted',
    answer: aPod('p1'),
    port: (p) =>
      p.deletePod(
        { namespace: 'ns', name: 'p1', uid: 'u1', resourceVersion: '7' },
        { propagationPolicy: 'Background' },
      ),
    generated: (c) =>
      c.core.deleteNamespacedPod({
        namespace: 'ns',
        name: 'p1',
        body: { preconditions: { uid: 'u1', resourceVersion: '7' }, propagationPolicy: 'Background' },
      }),
  },
  {
    name: "a pod's owners patched",
    answer: aPod('p1'),
    port: (p) =>
      p.patchPodOwnerReferences({
        namespace: 'ns',
        name: 'p1',
        uid: 'u1',
        resourceVersion: '7',
        ownerReferences: [owner],
        labels: { a: null as unknown as string },
      }),
    generated: (c) =>
      c.core.patchNamespacedPod(
        {
          namespace: 'ns',
          name: 'p1',
          body: {
            metadata: { uid: 'u1', resourceVersion: '7', ownerReferences: [owner], labels: { a: null } },
          },
        },
        callOptions({ headers: { 'Content-Type': 'application/merge-patch+json' } }),
      ),
  },
  {
    name: 'a pod JSON-patched',
    answer: aPod('p1'),
    port: (p) => p.jsonPatchPod('ns', 'p1', jsonPatch),
    generated: (c) =>
      c.core.patchNamespacedPod(
        { namespace: 'ns', name: 'p1', body: jsonPatch },
        callOptions({ headers: { 'Content-Type': 'application/json-patch+json' } }),
      ),
    same: true,
  },
  {
    name: "a pod's resize JSON-patched",
    answer: aPod('p1'),
    port: (p) => p.jsonPatchPodResize('ns', 'p1', jsonPatch),
    generated: (c) =>
      c.core.patchNamespacedPodResize(
        { namespace: 'ns', name: 'p1', body: jsonPatch },
        callOptions({ headers: { 'Content-Type': 'application/json-patch+json' } }),
      ),
    same: true,
  },
  {
    name: 'the kube-system namespace',
    answer: { metadata: { name: 'kube-system', uid: 'ks' } },
    port: (p) => p.getClusterIdentity(),
    generated: (c) => c.core.readNamespace({ name: 'kube-system' }),
  },
  {
    name: 'an apps/v1 DaemonSet from the watch cache',
    answer: aDaemonSet('ds'),
    port: (p) => p.getDaemonSet('ns', 'ds', { allowStale: true }),
    generated: (c) => c.apps.readNamespacedDaemonSet({ namespace: 'ns', name: 'ds' }, rv0),
    same: true,
  },
  {
    name: 'the apps/v1 DaemonSets of a namespace',
    answer: { items: [aDaemonSet('ds')], metadata: { resourceVersion: '9', continue: 'c2' } },
    port: async (p) => (await p.listDaemonSets({ ...listOptions, namespace: 'ns' })).items,
    generated: async (c) => (await c.apps.listNamespacedDaemonSet({ ...list, namespace: 'ns' })).items,
    same: true,
  },
  {
    name: 'the apps/v1 DaemonSets of all namespaces',
    answer: listAnswer,
    port: (p) => p.listDaemonSets(listOptions),
    generated: (c) => c.apps.listDaemonSetForAllNamespaces(list),
  },
  {
    name: "an apps/v1 DaemonSet's status",
    answer: aDaemonSet('ds'),
    port: (p) => p.updateDaemonSetStatus(aDaemonSet('ds')),
    generated: (c) =>
      c.apps.replaceNamespacedDaemonSetStatus({ namespace: 'default', name: 'ds', body: aDaemonSet('ds') }),
    same: true,
  },
  {
    name: 'an everynode.dev/v1 DaemonSet from the watch cache',
    kind: 'everynode.dev/v1',
    answer: aDaemonSet('ds'),
    port: (p) => p.getDaemonSet('ns', 'ds', { allowStale: true }),
    generated: (c) => c.custom.getNamespacedCustomObject({ ...everynode, namespace: 'ns', name: 'ds' }, rv0),
  },
  {
    name: 'the everynode.dev/v1 DaemonSets of a namespace',
    kind: 'everynode.dev/v1',
    answer: listAnswer,
    port: (p) => p.listDaemonSets({ ...listOptions, namespace: 'ns' }),
    generated: (c) => c.custom.listNamespacedCustomObject({ ...everynode, ...list, namespace: 'ns' }),
  },
  {
    name: 'the everynode.dev/v1 DaemonSets of all namespaces',
    kind: 'everynode.dev/v1',
    answer: listAnswer,
    port: (p) => p.listDaemonSets({ ...listOptions, notOlderThan: '42' }),
    generated: (c) => c.custom.listClusterCustomObject({ ...everynode, ...notOlder }),
  },
  {
    name: "an everynode.dev/v1 DaemonSet's status",
    kind: 'everynode.dev/v1',
    answer: aDaemonSet('ds'),
    port: (p) => p.updateDaemonSetStatus(aDaemonSet('ds')),
    generated: (c) =>
      c.custom.replaceNamespacedCustomObjectStatus({
        ...everynode,
        namespace: 'default',
        name: 'ds',
        body: toJson(aDaemonSet('ds'), 'V1DaemonSet'),
      }),
  },
  {
    name: 'the controller revisions of a namespace',
    answer: { items: [revision], metadata: { resourceVersion: '9' } },
    port: async (p) => (await p.listControllerRevisions('ns', listOptions)).items,
    generated: async (c) =>
      (await c.apps.listNamespacedControllerRevision({ ...list, namespace: 'ns' })).items,
    same: true,
  },
  {
    name: 'the controller revisions of all namespaces',
    answer: listAnswer,
    port: (p) => p.listControllerRevisions(undefined, { labelSelector: 'l=1' }),
    generated: (c) => c.apps.listControllerRevisionForAllNamespaces({ labelSelector: 'l=1' }),
  },
  {
    name: 'a controller revision created',
    answer: revision,
    port: (p) => p.createControllerRevision(revision),
    generated: (c) => c.apps.createNamespacedControllerRevision({ namespace: 'ns', body: revision }),
    same: true,
  },
  {
    name: 'a controller revision updated',
    answer: revision,
    port: (p) => p.updateControllerRevision(revision),
    generated: (c) =>
      c.apps.replaceNamespacedControllerRevision({ namespace: 'ns', name: 'ds-abc', body: revision }),
    same: true,
  },
  {
    name: 'a controller revision deleted',
    answer: { kind: 'Status', status: 'Success' },
    port: (p) =>
      p.deleteControllerRevision({ namespace: 'ns', name: 'ds-abc', uid: 'u', resourceVersion: '3' }),
    generated: (c) =>
      c.apps.deleteNamespacedControllerRevision({
        namespace: 'ns',
        name: 'ds-abc',
        body: { preconditions: { uid: 'u', resourceVersion: '3' } },
      }),
  },
  {
    name: 'an event',
    answer: event,
    port: (p) => p.createEvent(event),
    generated: (c) => c.core.createNamespacedEvent({ namespace: 'ns', body: event }),
  },
];

describe('the adapter requests what client-node generated operations request', () => {
  it.each(cases)('$name', async (c) => {
    server.answer = { status: 200, body: c.answer };
    const both = clients(c.kind ?? 'apps/v1');
    const ours = await c.port(both.port);
    const sent = lastRequest();
    const theirs = await c.generated(both);
    expect(sent).toEqual(lastRequest());
    if (c.same) expect(ours).toEqual(theirs);
  });

  it('decodes the large LISTs with the compiled decoder, as before: plain objects, Dates', async () => {
    const answer = { items: [aNode('n1')], metadata: { resourceVersion: '9' } };
    server.answer = { status: 200, body: answer };
    const { port } = clients('apps/v1');
    const { items } = await port.listNodes();
    const decoded = decodeModel<{ items: object[] }>(JSON.parse(JSON.stringify(answer)), 'V1NodeList');
    expect(items).toStrictEqual(decoded.items.map((node) => ({ ...node, apiVersion: 'v1', kind: 'Node' })));
    expect((items[0]?.metadata?.creationTimestamp as unknown) instanceof Date).toBe(true);
  });
});

/** An ApiException's message, code, body and headers, the Date header (a second apart) left out. */
function withoutDate(error: unknown) {
  const { code, body, headers } = error as { code: number; body: unknown; headers: Record<string, string> };
  const { date: _date, ...rest } = headers;
  const message = (error as Error).message.replace(/"date":"[^"]*",?/, '');
  return { message, code, body, headers: rest };
}

describe('error answers', () => {
  const errors: { name: string; answer: Answer }[] = [
    {
      name: '404 NotFound',
      answer: { status: 404, body: statusBody(404, 'NotFound', 'nodes "n1" not found') },
    },
    { name: '401 without a body', answer: { status: 401 } },
    { name: '429 with Retry-After', answer: { status: 429, headers: { 'retry-after': '3' }, body: {} } },
    { name: '500 with a text body', answer: { status: 500, headers: { 'content-type': 'text/plain' } } },
  ];
  it.each(errors)(
    'rejects with the ApiException of the generated operation for $name',
    async ({ answer }) => {
      server.answer = answer;
      const { configuration, core } = clients('apps/v1');
      const request = { method: 'GET', path: '/api/v1/nodes/n1', answer: { type: 'V1Node' } } as const;
      const ours = await sendKubeRequest(configuration, request).catch((error: unknown) => error);
      const theirs = await core.readNode({ name: 'n1' }).catch((error: unknown) => error);
      expect(ours).toBeInstanceOf(Error);
      expect(Object.getPrototypeOf(ours)).toBe(Object.getPrototypeOf(theirs));
      expect(withoutDate(ours)).toEqual(withoutDate(theirs));
    },
  );
});
