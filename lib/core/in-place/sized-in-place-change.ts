/**
 * The in-place change of one pod when its DaemonSet sizes pods per node (docs/design.md, per-node
 * sizing): the two revisions' templates compared as in-place-change.ts compares them, but each
 * sized for the pod's node by its own revision's rules, and the old side holding the size the pod
 * has rather than the one the old revision would give the node today. So:
 *
 * - a change of the rules alone resizes the pod to what the new rules give its node (the templates
 *   alone are equal: without sizing the pod would only have its revision label moved);
 * - a template change of images keeps each pod's size (the sized templates differ in images only);
 * - a template change of resources resizes to the new template sized for the node, not to the
 *   template's unsized values;
 * - the node's allocatable or labels changed under the same revision: the pod is resized to the
 *   size the node now calls for, and nothing else changes;
 * - images and a size change together recreate, as images and resources do.
 *
 * Only the cpu and memory values the sized template names are taken from the pod, for the
 * containers the rules of either revision name: values an admission plugin added stay out of the
 * comparison, as pod-size.ts leaves them out of "sized right".
 */
import type {
  V1Container,
  V1ControllerRevision,
  V1Node,
  V1Pod,
  V1PodTemplateSpec,
} from '@kubernetes/client-node';
import { CONTROLLER_REVISION_HASH_LABEL } from '../daemon-set.ts';
import { sizedContainerNames, sizeValuesOf } from '../node-sizing/pod-size.ts';
import { sizingRulesOfRevision } from '../node-sizing/revision-rules.ts';
import { sizedPodSpec } from '../node-sizing/sized-resources.ts';
import type { SizingRule } from '../node-sizing/sizing-rule.ts';
import { type InPlaceChange, inPlaceChange, type ResourcesChange } from './in-place-change.ts';
import { inPlaceStateOf } from './in-place-state.ts';

/** One revision's side: its pod template and its node-sizing rules (none: unsized). */
export interface SizedRevision {
  readonly template: Readonly<V1PodTemplateSpec>;
  readonly rules: readonly SizingRule[];
}

/** `template` with its containers sized for `node` by `rules`. */
function sizedTemplate(side: Readonly<SizedRevision>, node: Readonly<V1Node>): V1PodTemplateSpec {
  const spec = side.template.spec;
  if (spec === undefined || side.rules.length === 0) return side.template as V1PodTemplateSpec;
  return { ...side.template, spec: sizedPodSpec(spec, side.rules, node) };
}

/** `container` with the cpu and memory values it names replaced by those `pod`'s container has. */
function withPodSize(container: Readonly<V1Container>, pod: Readonly<V1Pod>): V1Container {
  const running = pod.spec?.containers?.find((c) => c.name === container.name);
  if (running === undefined) return container as V1Container;
  const have = sizeValuesOf(running);
  const overlay = (kind: 'requests' | 'limits') => {
    const named = container.resources?.[kind];
    if (named === undefined) return undefined;
    const taken = Object.fromEntries(
      Object.entries(named).map(([resource, value]) => [resource, have[kind][resource] ?? value]),
    );
    return taken;
  };
  const [requests, limits] = [overlay('requests'), overlay('limits')];
  return {
    ...container,
    resources: {
      ...container.resources,
      ...(requests === undefined ? {} : { requests }),
      ...(limits === undefined ? {} : { limits }),
    },
  };
}

/**
 * How `pod`, of the revision `old`, becomes a pod of `next` on `node`, in place: the change between
 * the two templates sized for `node` by their own rules, the old side holding the pod's own size in
 * the containers either revision's rules name (see the file's comment). Without rules on either
 * side, or without the node, it is {@link inPlaceChange} of the templates.
 */
export function sizedInPlaceChange(
  old: Readonly<SizedRevision>,
  next: Readonly<SizedRevision>,
  pod: Readonly<V1Pod>,
  node: Readonly<V1Node> | undefined,
): InPlaceChange {
  const names = sizedContainerNames([...old.rules, ...next.rules]);
  if (node === undefined || names.length === 0) return inPlaceChange(old.template, next.template);
  const before = sizedTemplate(old, node);
  const spec = before.spec;
  const asRunning: V1PodTemplateSpec =
    spec === undefined
      ? before
      : {
          ...before,
          spec: {
            ...spec,
            containers: spec.containers.map((c) => (names.includes(c.name) ? withPodSize(c, pod) : c)),
          },
        };
  return inPlaceChange(asRunning, sizedTemplate(next, node));
}

/** One pod's move between two revisions, on its node (the in-place update's request). */
export interface RevisionMove {
  readonly pod: Readonly<V1Pod>;
  readonly oldRevision: Readonly<V1ControllerRevision>;
  readonly newRevision: Readonly<V1ControllerRevision>;
  readonly node?: Readonly<V1Node> | undefined;
}

/**
 * {@link sizedInPlaceChange} of `move.pod` from the revision with template `oldTemplate` to the one
 * with `newTemplate`, each with the rules its revision holds (node-sizing/revision-rules.ts).
 */
export function sizedChangeOf(
  move: Readonly<RevisionMove>,
  oldTemplate: Readonly<V1PodTemplateSpec>,
  newTemplate: Readonly<V1PodTemplateSpec>,
): InPlaceChange {
  return sizedInPlaceChange(
    { template: oldTemplate, rules: sizingRulesOfRevision(move.oldRevision, oldTemplate) },
    { template: newTemplate, rules: sizingRulesOfRevision(move.newRevision, newTemplate) },
    move.pod,
    move.node,
  );
}

/**
 * True when the resize is all the pod needs: it stays on its revision (`newHash` is its label: only
 * its node changed), the change moves no label or annotation, and the pod already carries the
 * state of a resize to this revision (in-place-state.ts), which keeps it not ready until the kubelet
 * applied the new one and lets a resize the node cannot take fall back to a recreate. Without that
 * state the patch that writes it follows the resize, as after any resize.
 */
export function resizeAlone(
  pod: Readonly<V1Pod>,
  change: Readonly<ResourcesChange>,
  newHash: string,
): boolean {
  if (pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] !== newHash) return false;
  const { labels, annotations } = change;
  const quiet = [labels, annotations].every((m) => Object.keys(m.set).length === 0 && m.remove.length === 0);
  const state = inPlaceStateOf(pod);
  return quiet && state?.resize === true && state.revision === newHash && state.containers === undefined;
}
