/**
 * The containers part of kubectl's pod template description (kubectl pkg/describe describe.go:
 * describeContainers and the describeContainer* helpers, without the container statuses a template
 * has none of): name, image, ports, command and args, resources, probes, environment and mounts.
 */
import type { V1Container, V1Probe } from '@kubernetes/client-node';
import type { PrefixWriter } from './prefix-writer.ts';
import { resourceFieldValue } from './resource-field-value.ts';

/** `<none>` for an empty string (describe.go stringOrNone). */
function stringOrNone(text: string): string {
  return text === '' ? '<none>' : text;
}

function ports(container: Readonly<V1Container>, which: 'containerPort' | 'hostPort'): string {
  return (container.ports ?? []).map((port) => `${port[which] ?? 0}/${port.protocol ?? ''}`).join(', ');
}

function describeBasicInfo(container: Readonly<V1Container>, space: string, w: PrefixWriter): void {
  w.write(1, `${space === '' ? '' : ' '}${container.name}:\n`);
  w.write(2, `Image:\t${container.image ?? ''}\n`);
  const containerPorts = ports(container, 'containerPort');
  if (containerPorts.includes(',')) w.write(2, `Ports:\t${containerPorts}\n`);
  else w.write(2, `Port:\t${stringOrNone(containerPorts)}\n`);
  const hostPorts = ports(container, 'hostPort');
  if (hostPorts.includes(',')) w.write(2, `Host Ports:\t${hostPorts}\n`);
  else w.write(2, `Host Port:\t${stringOrNone(hostPorts)}\n`);
  const seccomp = container.securityContext?.seccompProfile;
  if (seccomp) {
    w.write(2, `SeccompProfile:\t${seccomp.type}\n`);
    if (seccomp.type === 'Localhost') w.write(3, `LocalhostProfile:\t${seccomp.localhostProfile ?? ''}\n`);
  }
}

function describeCommand(container: Readonly<V1Container>, w: PrefixWriter): void {
  for (const [title, words] of [
    ['Command', container.command],
    ['Args', container.args],
  ] as const) {
    if (!words || words.length === 0) continue;
    w.write(2, `${title}:\n`);
    for (const word of words) for (const line of word.split('\n')) w.write(3, `${line}\n`);
  }
}

function describeResources(container: Readonly<V1Container>, w: PrefixWriter): void {
  for (const [title, list] of [
    ['Limits', container.resources?.limits],
    ['Requests', container.resources?.requests],
  ] as const) {
    const names = Object.keys(list ?? {}).sort();
    if (names.length > 0) w.write(2, `${title}:\n`);
    for (const name of names) w.write(3, `${name}:\t${String(list?.[name])}\n`);
  }
}

/** A probe as describe.go DescribeProbe words it. */
export function describeProbe(probe: Readonly<V1Probe>): string {
  const attrs =
    `delay=${probe.initialDelaySeconds ?? 0}s timeout=${probe.timeoutSeconds ?? 0}s ` +
    `period=${probe.periodSeconds ?? 0}s #success=${probe.successThreshold ?? 0} #failure=${probe.failureThreshold ?? 0}`;
  if (probe.exec) return `exec [${(probe.exec.command ?? []).join(' ')}] ${attrs}`;
  if (probe.httpGet) {
    const { host = '', port, path = '', scheme = '' } = probe.httpGet;
    const portText = String(port ?? '');
    const hostPort = portText === '' ? host : `${host.includes(':') ? `[${host}]` : host}:${portText}`;
    // Go's url.URL.String(): no `scheme:` without a scheme, `//` before any host.
    const schemePart = scheme === '' ? '' : `${scheme.toLowerCase()}:`;
    return `http-get ${schemePart}${hostPort === '' ? '' : '//'}${hostPort}${path} ${attrs}`;
  }
  if (probe.tcpSocket)
    return `tcp-socket ${probe.tcpSocket.host ?? ''}:${String(probe.tcpSocket.port ?? '')} ${attrs}`;
  if (probe.grpc) return `grpc <pod>:${probe.grpc.port} ${probe.grpc.service ?? ''} ${attrs}`;
  return `unknown ${attrs}`;
}

function describeProbes(container: Readonly<V1Container>, w: PrefixWriter): void {
  if (container.livenessProbe) w.write(2, `Liveness:\t${describeProbe(container.livenessProbe)}\n`);
  if (container.readinessProbe) w.write(2, `Readiness:\t${describeProbe(container.readinessProbe)}\n`);
  if (container.startupProbe) w.write(2, `Startup:\t${describeProbe(container.startupProbe)}\n`);
}

function describeEnvFrom(container: Readonly<V1Container>, w: PrefixWriter): void {
  w.write(2, 'Environment Variables from:\n');
  for (const source of container.envFrom ?? []) {
    const ref = source.configMapRef ?? source.secretRef;
    const from = source.configMapRef ? 'ConfigMap' : source.secretRef ? 'Secret' : '';
    const optional = ref?.optional === true;
    const prefix = source.prefix ? ` with prefix '${source.prefix}'` : '';
    w.write(3, `${ref?.name ?? ''}\t${from}${prefix}\tOptional: ${optional}\n`);
  }
}

function describeEnv(container: Readonly<V1Container>, w: PrefixWriter): void {
  const env = container.env ?? [];
  w.write(2, `Environment:${env.length === 0 ? '\t<none>' : ''}\n`);
  for (const variable of env) {
    const from = variable.valueFrom;
    if (!from) {
      (variable.value ?? '').split('\n').forEach((line, index) => {
        w.write(3, index === 0 ? `${variable.name}:\t${line}\n` : `\t${line}\n`);
      });
    } else if (from.fieldRef) {
      w.write(3, `${variable.name}:\t (${from.fieldRef.apiVersion ?? ''}:${from.fieldRef.fieldPath})\n`);
    } else if (from.resourceFieldRef) {
      const value = resourceFieldValue(container, from.resourceFieldRef);
      w.write(3, `${variable.name}:\t${value} (${from.resourceFieldRef.resource})\n`);
    } else if (from.secretKeyRef) {
      const { key, name = '', optional } = from.secretKeyRef;
      w.write(
        3,
        `${variable.name}:\t<set to the key '${key}' in secret '${name}'>\tOptional: ${optional === true}\n`,
      );
    } else if (from.configMapKeyRef) {
      const { key, name = '', optional } = from.configMapKeyRef;
      w.write(
        3,
        `${variable.name}:\t<set to the key '${key}' of config map '${name}'>\tOptional: ${optional === true}\n`,
      );
    }
  }
}

function describeMounts(container: Readonly<V1Container>, w: PrefixWriter): void {
  const mounts = [...(container.volumeMounts ?? [])].sort((a, b) => compare(a.mountPath, b.mountPath));
  w.write(2, `Mounts:${mounts.length === 0 ? '\t<none>' : ''}\n`);
  for (const mount of mounts) {
    const flags = [
      mount.readOnly ? 'ro' : 'rw',
      ...(mount.subPath ? [`path=${JSON.stringify(mount.subPath)}`] : []),
    ];
    w.write(3, `${mount.mountPath} from ${mount.name} (${flags.join(',')})\n`);
  }
  const devices = [...(container.volumeDevices ?? [])].sort((a, b) => compare(a.devicePath, b.devicePath));
  if (devices.length > 0) {
    w.write(2, 'Devices:\n');
    for (const device of devices) w.write(3, `${device.devicePath} from ${device.name}\n`);
  }
}

function compare(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** Writes `containers` under the heading `label` (`Containers`, `Init Containers`) as kubectl does. */
export function describeContainers(
  label: string,
  containers: readonly V1Container[],
  w: PrefixWriter,
  space: string,
): void {
  w.write(0, `${space}${label}:${containers.length === 0 ? ' <none>' : ''}\n`);
  for (const container of containers) {
    describeBasicInfo(container, space, w);
    describeCommand(container, w);
    describeResources(container, w);
    describeProbes(container, w);
    if ((container.envFrom ?? []).length > 0) describeEnvFrom(container, w);
    describeEnv(container, w);
    describeMounts(container, w);
  }
}
