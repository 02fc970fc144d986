/**
 * Defaults the real API server fills into pods and pod templates
 * (pkg/apis/core/v1/defaults.go SetDefaults_PodSpec / SetDefaults_Container) and, for pods only,
 * what the default admission chain adds (plugin/pkg/admission/defaulttolerationseconds,
 * serviceaccount, priority) and the initial status (pkg/registry/core/pod/strategy.go PrepareForCreate).
 */
import { defaultRequestsFromLimits, podQosClass } from './pod-qos.ts';
import { asRecord } from './store-json.ts';

type Json = Record<string, unknown>;

/** Sets `obj[field]` to `value` when it is absent. */
function setDefault(obj: Json, field: string, value: unknown): void {
  if (obj[field] === undefined || obj[field] === null) obj[field] = value;
}

/** imagePullPolicy default: Always for `:latest` or untagged images, else IfNotPresent. */
function pullPolicyFor(image: unknown): string {
  if (typeof image !== 'string') return 'IfNotPresent';
  if (image.includes('@')) return 'IfNotPresent';
  const lastSegment = image.slice(image.lastIndexOf('/') + 1);
  const tag = lastSegment.includes(':') ? lastSegment.slice(lastSegment.indexOf(':') + 1) : '';
  return tag === '' || tag === 'latest' ? 'Always' : 'IfNotPresent';
}

/** SetDefaults_Container plus the ports' protocol default. */
function defaultContainer(container: Json): void {
  setDefault(container, 'terminationMessagePath', '/dev/termination-log');
  setDefault(container, 'terminationMessagePolicy', 'File');
  setDefault(container, 'imagePullPolicy', pullPolicyFor(container.image));
  setDefault(container, 'resources', {});
  const ports = Array.isArray(container.ports) ? container.ports : [];
  for (const port of ports) {
    const p = asRecord(port);
    if (p) setDefault(p, 'protocol', 'TCP');
  }
}

/** Applies the pod spec defaults in place (also used for DaemonSet pod templates). */
export function defaultPodSpec(spec: Json): void {
  setDefault(spec, 'restartPolicy', 'Always');
  setDefault(spec, 'dnsPolicy', 'ClusterFirst');
  setDefault(spec, 'terminationGracePeriodSeconds', 30);
  setDefault(spec, 'securityContext', {});
  setDefault(spec, 'schedulerName', 'default-scheduler');
  for (const field of ['containers', 'initContainers']) {
    const list = spec[field];
    if (Array.isArray(list)) for (const c of list) if (asRecord(c)) defaultContainer(c as Json);
  }
}

/** Whether the toleration list already tolerates `key:NoExecute` (DefaultTolerationSeconds' check). */
function toleratesNoExecute(tolerations: readonly unknown[], key: string): boolean {
  return tolerations.some((t) => {
    const tol = asRecord(t);
    if (!tol) return false;
    const effectOk = tol.effect === undefined || tol.effect === '' || tol.effect === 'NoExecute';
    const keyOk = tol.key === key || ((tol.key === undefined || tol.key === '') && tol.operator === 'Exists');
    return effectOk && keyOk;
  });
}

/**
 * The defaults an updated pod's spec gets when its body is decoded (SetDefaults_PodSpec,
 * SetDefaults_Container, SetDefaults_Pod), so a body that leaves them out changes nothing.
 */
export function defaultPodForUpdate(pod: Json): void {
  const spec = asRecord(pod.spec);
  if (!spec) return;
  defaultPodSpec(spec);
  defaultRequestsFromLimits(spec);
  setDefault(spec, 'enableServiceLinks', true);
}

/** Applies everything a new pod gets from defaults, admission and PrepareForCreate, in place. */
export function preparePodForCreate(pod: Json): void {
  const spec = asRecord(pod.spec) ?? {};
  pod.spec = spec;
  defaultPodSpec(spec);
  defaultRequestsFromLimits(spec);
  setDefault(spec, 'enableServiceLinks', true);
  setDefault(spec, 'serviceAccountName', 'default');
  setDefault(spec, 'serviceAccount', spec.serviceAccountName);
  setDefault(spec, 'priority', 0);
  setDefault(spec, 'preemptionPolicy', 'PreemptLowerPriority');
  const tolerations = Array.isArray(spec.tolerations) ? [...spec.tolerations] : [];
  for (const key of ['node.kubernetes.io/not-ready', 'node.kubernetes.io/unreachable']) {
    if (!toleratesNoExecute(tolerations, key)) {
      tolerations.push({ key, operator: 'Exists', effect: 'NoExecute', tolerationSeconds: 300 });
    }
  }
  spec.tolerations = tolerations;
  pod.status = { phase: 'Pending', qosClass: podQosClass(spec) };
}
