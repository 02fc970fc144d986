/**
 * The pod template description of `kubectl everynode rollout history --revision=N`, against what
 * kubectl 1.33 printed for the same template (`kubectl rollout history ds/demo --revision=7` on an
 * apps/v1 DaemonSet of the simulated cluster, recorded below line by line): a template with every
 * part the description has — annotations short, long and multi-line, service account, an init
 * container, ports, arguments, resources, the three probes, environment from every source, mounts,
 * the common volume sources, topology spread, priority class, node selectors and tolerations.
 */
import type { V1PodTemplateSpec } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { describePodTemplate } from '../../lib/kubectl-plugin/pod-template-description.ts';

const template: V1PodTemplateSpec = {
  metadata: {
    labels: { app: 'demo' },
    annotations: { short: 'v', long: 'x'.repeat(170), multi: 'l1\nl2\n' },
  },
  spec: {
    serviceAccountName: 'sa',
    priorityClassName: 'high',
    nodeSelector: { 'kubernetes.io/os': 'linux', disk: 'ssd' },
    tolerations: [
      { operator: 'Exists' },
      { key: 'b', operator: 'Exists', effect: 'NoSchedule' },
      { key: 'a', value: 'v', effect: 'NoExecute', tolerationSeconds: 30 },
    ],
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'zone',
        whenUnsatisfiable: 'DoNotSchedule',
        labelSelector: {
          matchLabels: { app: 'demo' },
          matchExpressions: [{ key: 'tier', operator: 'In', values: ['b', 'a'] }],
        },
      },
    ],
    initContainers: [{ name: 'init', image: 'busybox', command: ['true'] }],
    containers: [
      {
        name: 'demo',
        image: 'busybox:1.36',
        command: ['sleep', 'infinity'],
        args: ['a\nb'],
        ports: [
          { containerPort: 80, protocol: 'TCP' },
          { containerPort: 443, hostPort: 8443, protocol: 'TCP' },
        ],
        env: [
          { name: 'A', value: '1\n2' },
          { name: 'N', valueFrom: { fieldRef: { fieldPath: 'spec.nodeName' } } },
          { name: 'S', valueFrom: { secretKeyRef: { name: 's', key: 'k' } } },
          { name: 'C', valueFrom: { configMapKeyRef: { name: 'c', key: 'k', optional: true } } },
          { name: 'R', valueFrom: { resourceFieldRef: { resource: 'limits.cpu' } } },
        ],
        envFrom: [{ configMapRef: { name: 'cm' } }, { secretRef: { name: 'sec' }, prefix: 'P_' }],
        resources: { limits: { cpu: '500m', memory: '128Mi' }, requests: { cpu: '100m' } },
        livenessProbe: { httpGet: { path: '/healthz', port: 8080 } },
        readinessProbe: { exec: { command: ['cat', '/tmp/ok'] }, initialDelaySeconds: 3 },
        startupProbe: { tcpSocket: { port: 'http' } },
        volumeMounts: [
          { name: 'logs', mountPath: '/var/log' },
          { name: 'cfg', mountPath: '/etc/cfg', readOnly: true, subPath: 'x' },
        ],
      },
    ],
    volumes: [
      { name: 'logs', hostPath: { path: '/var/log', type: 'Directory' } },
      { name: 'cfg', configMap: { name: 'cfg' } },
      { name: 'tmp', emptyDir: {} },
      { name: 'sec', secret: { secretName: 'sec', optional: true } },
      {
        name: 'proj',
        projected: {
          sources: [
            { serviceAccountToken: { path: 't', expirationSeconds: 3600 } },
            { configMap: { name: 'x' } },
            { downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } },
          ],
        },
      },
      { name: 'dapi', downwardAPI: { items: [{ path: 'l', fieldRef: { fieldPath: 'metadata.labels' } }] } },
      { name: 'pvc', persistentVolumeClaim: { claimName: 'c' } },
    ],
  },
};

/** kubectl 1.33's lines for `template` (tabs as kubectl writes them: no alignment). */
const kubectlLines = [
  'Pod Template:',
  '  Labels:\tapp=demo',
  '  Annotations:\tlong:',
  `\t  ${'x'.repeat(138)}...`,
  '\tmulti:',
  '\t  l1',
  '\t  l2',
  '\tshort: v',
  '  Service Account:\tsa',
  '  Init Containers:',
  '   init:',
  '    Image:\tbusybox',
  '    Port:\t<none>',
  '    Host Port:\t<none>',
  '    Command:',
  '      true',
  '    Environment:\t<none>',
  '    Mounts:\t<none>',
  '  Containers:',
  '   demo:',
  '    Image:\tbusybox:1.36',
  '    Ports:\t80/TCP, 443/TCP',
  '    Host Ports:\t0/TCP, 8443/TCP',
  '    Command:',
  '      sleep',
  '      infinity',
  '    Args:',
  '      a',
  '      b',
  '    Limits:',
  '      cpu:\t500m',
  '      memory:\t128Mi',
  '    Requests:',
  '      cpu:\t100m',
  '    Liveness:\thttp-get //:8080/healthz delay=0s timeout=0s period=0s #success=0 #failure=0',
  '    Readiness:\texec [cat /tmp/ok] delay=3s timeout=0s period=0s #success=0 #failure=0',
  '    Startup:\ttcp-socket :http delay=0s timeout=0s period=0s #success=0 #failure=0',
  '    Environment Variables from:',
  '      cm\tConfigMap\tOptional: false',
  "      sec\tSecret with prefix 'P_'\tOptional: false",
  '    Environment:',
  '      A:\t1',
  '      \t2',
  '      N:\t (:spec.nodeName)',
  "      S:\t<set to the key 'k' in secret 's'>\tOptional: false",
  "      C:\t<set to the key 'k' of config map 'c'>\tOptional: true",
  '      R:\t1 (limits.cpu)',
  '    Mounts:',
  '      /etc/cfg from cfg (ro,path="x")',
  '      /var/log from logs (rw)',
  '  Volumes:',
  '   logs:',
  '    Type:\tHostPath (bare host directory volume)',
  '    Path:\t/var/log',
  '    HostPathType:\tDirectory',
  '   cfg:',
  '    Type:\tConfigMap (a volume populated by a ConfigMap)',
  '    Name:\tcfg',
  '    Optional:\tfalse',
  '   tmp:',
  "    Type:\tEmptyDir (a temporary directory that shares a pod's lifetime)",
  '    Medium:\t',
  '    SizeLimit:\t<unset>',
  '   sec:',
  '    Type:\tSecret (a volume populated by a Secret)',
  '    SecretName:\tsec',
  '    Optional:\ttrue',
  '   proj:',
  '    Type:\tProjected (a volume that contains injected data from multiple sources)',
  '    TokenExpirationSeconds:\t3600',
  '    ConfigMapName:\tx',
  '    Optional:\tfalse',
  '    DownwardAPI:\ttrue',
  '   dapi:',
  '    Type:\tDownwardAPI (a volume populated by information about the pod)',
  '    Items:',
  '      metadata.labels -> l',
  '   pvc:',
  '    Type:\tPersistentVolumeClaim (a reference to a PersistentVolumeClaim in the same namespace)',
  '    ClaimName:\tc',
  '    ReadOnly:\tfalse',
  '  Topology Spread Constraints:\tzone:DoNotSchedule when max skew 1 is exceeded for selector app=demo,tier in (a,b)',
  '  Priority Class Name:\thigh',
  '  Node-Selectors:\tdisk=ssd',
  '\tkubernetes.io/os=linux',
  '  Tolerations:\top=Exists',
  '\ta=v:NoExecute for 30s',
  '\tb:NoSchedule op=Exists',
];

describe('describePodTemplate', () => {
  it('describes a template line by line as kubectl 1.33 does', () => {
    expect(describePodTemplate(template).split('\n')).toEqual([...kubectlLines, '']);
  });

  it('describes a bare template with kubectl’s <none>s', () => {
    const bare = describePodTemplate({ spec: { containers: [{ name: 'c', image: 'i' }] } });
    expect(bare).toBe(
      [
        'Pod Template:',
        '  Labels:\t<none>',
        '  Containers:',
        '   c:',
        '    Image:\ti',
        '    Port:\t<none>',
        '    Host Port:\t<none>',
        '    Environment:\t<none>',
        '    Mounts:\t<none>',
        '  Volumes:\t<none>',
        '  Node-Selectors:\t<none>',
        '  Tolerations:\t<none>',
        '',
      ].join('\n'),
    );
  });
});
