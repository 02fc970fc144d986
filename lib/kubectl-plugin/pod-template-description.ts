/**
 * A pod template described as `kubectl rollout history --revision=N` prints it (kubectl
 * pkg/describe describe.go DescribePodTemplate through a PrefixWriter, no tab alignment): labels,
 * annotations, service account, init containers, containers, volumes, topology spread constraints,
 * priority class, node selectors and tolerations.
 */
import type {
  V1LabelSelector,
  V1PodTemplateSpec,
  V1Toleration,
  V1TopologySpreadConstraint,
} from '@kubernetes/client-node';
import { describeContainers } from './describe-containers.ts';
import { describeVolumes } from './describe-volumes.ts';
import { PrefixWriter } from './prefix-writer.ts';

/** Annotations kubectl describe leaves out (describe.go skipAnnotations). */
const SKIP_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);
/** Longest `key: value` annotation kept on one line (describe.go maxAnnotationLen). */
const MAX_ANNOTATION_LENGTH = 140;

function sortedKeys(map: Readonly<Record<string, string>> | undefined, skip = new Set<string>()): string[] {
  return Object.keys(map ?? {})
    .filter((key) => !skip.has(key))
    .sort();
}

function printLabels(
  w: PrefixWriter,
  title: string,
  labels: Readonly<Record<string, string>> | undefined,
): void {
  w.write(0, `${title}:\t`);
  const keys = sortedKeys(labels);
  if (keys.length === 0) w.writeLine('<none>');
  keys.forEach((key, index) => {
    if (index !== 0) w.write(0, '\t');
    w.write(0, `${key}=${labels?.[key]}\n`);
  });
}

function printAnnotations(
  w: PrefixWriter,
  title: string,
  annotations: Readonly<Record<string, string>>,
): void {
  w.write(0, `${title}:\t`);
  const keys = sortedKeys(annotations, SKIP_ANNOTATIONS);
  if (keys.length === 0) w.writeLine('<none>');
  keys.forEach((key, index) => {
    if (index !== 0) w.write(0, '\t');
    const value = (annotations[key] ?? '').replace(/\n$/, '');
    if (value.length + key.length + 2 > MAX_ANNOTATION_LENGTH || value.includes('\n')) {
      w.write(0, `${key}:\n`);
      for (const line of value.split('\n')) w.write(0, `\t  ${shorten(line, MAX_ANNOTATION_LENGTH - 2)}\n`);
    } else {
      w.write(0, `${key}: ${value}\n`);
    }
  });
}

function shorten(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max)}...` : text;
}

function printTolerations(w: PrefixWriter, title: string, tolerations: readonly V1Toleration[]): void {
  w.write(0, `${title}:\t`);
  if (tolerations.length === 0) w.writeLine('<none>');
  const sorted = [...tolerations].sort((a, b) =>
    (a.key ?? '') < (b.key ?? '') ? -1 : (a.key ?? '') > (b.key ?? '') ? 1 : 0,
  );
  sorted.forEach((toleration, index) => {
    if (index !== 0) w.write(0, '\t');
    const { key = '', value = '', effect = '', operator, tolerationSeconds } = toleration;
    let text = key + (value === '' ? '' : `=${value}`) + (effect === '' ? '' : `:${effect}`);
    if (operator === 'Exists' && value === '')
      text += key !== '' || effect !== '' ? ' op=Exists' : 'op=Exists';
    if (tolerationSeconds !== undefined && tolerationSeconds !== null) text += ` for ${tolerationSeconds}s`;
    w.write(0, `${text}\n`);
  });
}

/** metav1.FormatLabelSelector: requirements sorted by key, `<none>` for an empty selector. */
function formatLabelSelector(selector: Readonly<V1LabelSelector>): string {
  const requirements = [
    ...Object.entries(selector.matchLabels ?? {}).map(([key, value]) => ({ key, text: `${key}=${value}` })),
    ...(selector.matchExpressions ?? []).map(({ key, operator, values = [] }) => {
      const list = `(${[...values].sort().join(',')})`;
      const text =
        operator === 'In'
          ? `${key} in ${list}`
          : operator === 'NotIn'
            ? `${key} notin ${list}`
            : operator === 'Exists'
              ? key
              : `!${key}`;
      return { key, text };
    }),
  ].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
  return requirements.length === 0 ? '<none>' : requirements.map((r) => r.text).join(',');
}

function describeTopologySpread(
  constraints: readonly V1TopologySpreadConstraint[],
  w: PrefixWriter,
  space: string,
): void {
  if (constraints.length === 0) return;
  const sorted = [...constraints].sort((a, b) =>
    a.topologyKey < b.topologyKey ? -1 : a.topologyKey > b.topologyKey ? 1 : 0,
  );
  w.write(0, `${space}Topology Spread Constraints:\t`);
  sorted.forEach((constraint, index) => {
    if (index !== 0) w.write(0, `${space}\t`);
    const selector = constraint.labelSelector
      ? ` for selector ${formatLabelSelector(constraint.labelSelector)}`
      : '';
    w.write(
      0,
      `${constraint.topologyKey}:${constraint.whenUnsatisfiable} when max skew ${constraint.maxSkew} is exceeded${selector}\n`,
    );
  });
}

/** The description of `template`, from its `Pod Template:` heading to its last line. */
export function describePodTemplate(template: Readonly<V1PodTemplateSpec> | undefined): string {
  const w = new PrefixWriter();
  w.write(0, 'Pod Template:\n');
  if (template === undefined) {
    w.write(1, '<unset>');
    return w.toString();
  }
  const spec = template.spec;
  printLabels(w, '  Labels', template.metadata?.labels);
  const annotations = template.metadata?.annotations ?? {};
  if (Object.keys(annotations).length > 0) printAnnotations(w, '  Annotations', annotations);
  if (spec?.serviceAccountName) w.write(1, `Service Account:\t${spec.serviceAccountName}\n`);
  if ((spec?.initContainers ?? []).length > 0)
    describeContainers('Init Containers', spec?.initContainers ?? [], w, '  ');
  describeContainers('Containers', spec?.containers ?? [], w, '  ');
  describeVolumes(spec?.volumes ?? [], w, '  ');
  describeTopologySpread(spec?.topologySpreadConstraints ?? [], w, '  ');
  if (spec?.priorityClassName) w.write(1, `Priority Class Name:\t${spec.priorityClassName}\n`);
  printLabels(w, '  Node-Selectors', spec?.nodeSelector);
  printTolerations(w, '  Tolerations', spec?.tolerations ?? []);
  return w.toString();
}
