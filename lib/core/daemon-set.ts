/**
 * The DaemonSet shape everynode reconciles, and the label and annotation names it reads and writes
 * on DaemonSets and their pods.
 */
import type { V1DaemonSet } from '@kubernetes/client-node';

/**
 * A DaemonSet as the core sees it: an `apps/v1` DaemonSet, or an `everynode.dev/v1` one, which has
 * the same shape plus extension fields (read by `rolloutExtensionsOf`).
 */
export type DaemonSet = V1DaemonSet;

/**
 * Label on daemon pods and ControllerRevisions naming the template hash they were built from
 * (upstream apps/v1 `DefaultDaemonSetUniqueLabelKey` = `ControllerRevisionHashLabelKey`).
 */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/**
 * Label on daemon pods holding the DaemonSet's template generation, set only when the DaemonSet
 * carries {@link TEMPLATE_GENERATION_ANNOTATION} (upstream apps/v1 `DaemonSetTemplateGenerationKey`).
 */
export const POD_TEMPLATE_GENERATION_LABEL = 'pod-template-generation';

/**
 * Annotation on a DaemonSet holding its template generation (upstream apps/v1
 * `DeprecatedTemplateGeneration`), copied into {@link POD_TEMPLATE_GENERATION_LABEL} on its pods.
 */
export const TEMPLATE_GENERATION_ANNOTATION = 'deprecated.daemonset.template.generation';

/**
 * Label everynode puts on every pod it creates, holding the owning DaemonSet's uid, so the relay
 * can watch only our pods with one label selector (beyond upstream).
 */
export const DAEMONSET_UID_LABEL = 'everynode.dev/daemonset-uid';
