/**
 * The KubePort methods on ControllerRevisions and Events, over client-node's AppsV1Api and CoreV1Api.
 */
import type { KubeApis } from './kube-apis.ts';
import { kubeCall, listParameters, listResultOf, withKind } from './kube-call.ts';
import type { KubePort } from './kube-port.ts';

type RevisionAndEventMethods = Pick<
  KubePort,
  | 'listControllerRevisions'
  | 'createControllerRevision'
  | 'updateControllerRevision'
  | 'deleteControllerRevision'
  | 'createEvent'
>;

const REVISION = ['apps/v1', 'ControllerRevision'] as const;

/** The ControllerRevision and Event methods of the port. */
export function revisionOperations({ apps, core }: KubeApis): RevisionAndEventMethods {
  return {
    async listControllerRevisions(namespace, options) {
      const where = namespace === undefined ? 'in all namespaces' : `in namespace ${namespace}`;
      const doing = `listing controller revisions ${where}${options?.labelSelector ? ` matching ${options.labelSelector}` : ''}`;
      const list = await kubeCall(doing, () =>
        namespace === undefined
          ? apps.listControllerRevisionForAllNamespaces(listParameters(options))
          : apps.listNamespacedControllerRevision({ namespace, ...listParameters(options) }),
      );
      return listResultOf(list, ...REVISION);
    },
    async createControllerRevision(revision) {
      const namespace = revision.metadata?.namespace ?? 'default';
      const doing = `creating controller revision ${namespace}/${revision.metadata?.name} (revision ${revision.revision})`;
      return withKind(
        await kubeCall(doing, () => apps.createNamespacedControllerRevision({ namespace, body: revision })),
        ...REVISION,
      );
    },
    async updateControllerRevision(revision) {
      const { namespace = 'default', name = '', resourceVersion } = revision.metadata ?? {};
      const doing = `updating controller revision ${namespace}/${name} to revision ${revision.revision} at resourceVersion ${resourceVersion}`;
      return withKind(
        await kubeCall(doing, () =>
          apps.replaceNamespacedControllerRevision({ namespace, name, body: revision }),
        ),
        ...REVISION,
      );
    },
    async deleteControllerRevision({ namespace, name, uid, resourceVersion }) {
      await kubeCall(`deleting controller revision ${namespace}/${name} (uid ${uid})`, () =>
        apps.deleteNamespacedControllerRevision({
          namespace,
          name,
          body: { preconditions: { uid, resourceVersion } },
        }),
      );
    },
    async createEvent(event) {
      const namespace = event.metadata?.namespace ?? event.involvedObject.namespace ?? 'default';
      const about = `${event.involvedObject.kind} ${event.involvedObject.namespace ?? ''}/${event.involvedObject.name}`;
      await kubeCall(`recording event ${event.reason} on ${about}`, () =>
        core.createNamespacedEvent({ namespace, body: event }),
      );
    },
  };
}
