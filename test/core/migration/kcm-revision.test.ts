import { describe, expect, it } from 'vitest';
import { goJson } from '../../../lib/core/migration/go-json.ts';
import { controllerRevisionBody, kcmRevisionPatch } from '../../../lib/core/migration/kcm-revision.ts';

/**
 * The data kube-controller-manager wrote for a template, as an upstream controller test records it
 * byte for byte (a StatefulSet's revision: getPatch is the same for both kinds).
 */
const UPSTREAM_RAW =
  '{"spec":{"template":{"$patch":"replace","metadata":{"annotations":{"test":"value"},"creationTimestamp":null,"labels":{"app":"foo"}},"spec":{"containers":[{"image":"test","imagePullPolicy":"Always","name":"test","resources":{},"terminationMessagePath":"/dev/termination-log","terminationMessagePolicy":"File"}],"dnsPolicy":"ClusterFirst","restartPolicy":"Always","schedulerName":"default-scheduler","securityContext":{},"terminationGracePeriodSeconds":30}}}}';

describe('kcmRevisionPatch', () => {
  it('gives the bytes kube-controller-manager stores, whatever order the server sent the fields in', () => {
    // The template in Go's struct order, as the API server sends the DaemonSet.
    const ds = {
      apiVersion: 'apps/v1',
      kind: 'DaemonSet',
      metadata: { name: 'test', generation: 3 },
      spec: {
        selector: { matchLabels: { app: 'foo' } },
        template: {
          metadata: { creationTimestamp: null, labels: { app: 'foo' }, annotations: { test: 'value' } },
          spec: {
            containers: [
              {
                name: 'test',
                image: 'test',
                resources: {},
                terminationMessagePath: '/dev/termination-log',
                terminationMessagePolicy: 'File',
                imagePullPolicy: 'Always',
              },
            ],
            restartPolicy: 'Always',
            terminationGracePeriodSeconds: 30,
            dnsPolicy: 'ClusterFirst',
            securityContext: {},
            schedulerName: 'default-scheduler',
          },
        },
      },
    };
    expect(kcmRevisionPatch(ds)).toBe(UPSTREAM_RAW);
  });

  it('keeps only the template: a change elsewhere in the spec leaves the bytes alone', () => {
    const a = { spec: { template: { metadata: { labels: { a: 'b' } } }, minReadySeconds: 5 } };
    const b = { spec: { template: { metadata: { labels: { a: 'b' } } }, minReadySeconds: 9 } };
    expect(kcmRevisionPatch(a)).toBe(kcmRevisionPatch(b));
  });
});

describe('goJson', () => {
  it('escapes as encoding/json does: HTML characters and the line separators', () => {
    expect(goJson({ v: 'a<b>&c\u2028\u2029"\\\n\t\u0001' })).toBe(
      '{"v":"a\\u003cb\\u003e\\u0026c\\u2028\\u2029\\"\\\\\\n\\t\\u0001"}',
    );
  });

  it('sorts keys by their bytes, integer-like keys among the rest', () => {
    expect(goJson({ b: 1, '10': 2, a: [true, null], '9': { z: 0, $p: 'x' } })).toBe(
      '{"10":2,"9":{"$p":"x","z":0},"a":[true,null],"b":1}',
    );
  });

  it('sorts by code point above the Basic Multilingual Plane, as UTF-8 bytes sort', () => {
    expect(goJson({ '\u{1F600}': 1, '\uFF5E': 2 })).toBe('{"\uFF5E":2,"\u{1F600}":1}');
  });

  it('prints numbers as float64 does for the values Kubernetes objects hold', () => {
    expect(goJson([30, 0.5, -1, 1e20])).toBe('[30,0.5,-1,100000000000000000000]');
  });
});

describe('controllerRevisionBody', () => {
  it('carries the patch byte for byte beside the metadata', () => {
    const body = controllerRevisionBody(
      { name: 'x-abc', namespace: 'ns' },
      4,
      '{"spec":{"b":"\\u003c","a":1}}',
    );
    expect(body).toBe(
      '{"apiVersion":"apps/v1","kind":"ControllerRevision","metadata":{"name":"x-abc","namespace":"ns"},"revision":4,"data":{"spec":{"b":"\\u003c","a":1}}}',
    );
    expect(JSON.parse(body).data).toEqual({ spec: { b: '<', a: 1 } });
  });
});
