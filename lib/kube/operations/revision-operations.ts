/**
 * The KubePort methods on ControllerRevisions (apps/v1) and Events (core/v1).
 */
import type {
  Configuration,
  CoreV1Event,
  V1ControllerRevision,
  V1ControllerRevisionList,
} from '@kubernetes/client-node';
import type { KubePort } from '../kube-port.ts';
import { kubeCall, listParameters, listResultOf, withKind } from '../requests/kube-call.ts';
import { apiPath, listQuery, sendKubeRequest } from '../requests/kube-request.ts';

type RevisionAndEventMethods = Pick<
  KubePort,
  | 'listControllerRevisions'
  | 'createControllerRevision'
  | 'updateControllerRevision'
  | 'deleteControllerRevision'
  | 'createEvent'
>;

const REVISION = ['apps/v1', 'ControllerRevision'] as const;
const REVISIONS = '/apis/apps/v1/namespaces/{namespace}/controllerrevisions';

/** The ControllerRevision and Event methods of the port, sending through `configuration`. */
export function revisionOperations(configuration: Configuration): RevisionAndEventMethods {
  return {
    async listControllerRevisions(namespace, options) {
      const where = namespace === undefined ? 'in all namespaces' : `in namespace ${namespace}`;
      const doing = `listing controller revisions ${where}${options?.labelSelector ? ` matching ${options.labelSelector}` : ''}`;
      const list = await kubeCall(doing, () =>
        sendKubeRequest<V1ControllerRevisionList>(configuration, {
          method: 'GET',
          path:
            namespace === undefined ? '/apis/apps/v1/controllerrevisions' : apiPath(REVISIONS, { namespace }),
          query: listQuery(listParameters(options)),
          answer: { type: 'V1ControllerRevisionList' },
        }),
      );
      return listResultOf(list, ...REVISION);
    },
    async createControllerRevision(revision) {
      const namespace = revision.metadata?.namespace ?? 'default';
      const doing = `creating controller revision ${namespace}/${revision.metadata?.name} (revision ${revision.revision})`;
      const created = await kubeCall(doing, () =>
        sendKubeRequest<V1ControllerRevision>(configuration, {
          method: 'POST',
          path: apiPath(REVISIONS, { namespace }),
          body: { value: revision, type: 'V1ControllerRevision' },
          answer: { type: 'V1ControllerRevision' },
        }),
      );
      return withKind(created, ...REVISION);
    },
    async updateControllerRevision(revision) {
      const { namespace = 'default', name = '', resourceVersion } = revision.metadata ?? {};
      const doing = `updating controller revision ${namespace}/${name} to revision ${revision.revision} at resourceVersion ${resourceVersion}`;
      const updated = await kubeCall(doing, () =>
        sendKubeRequest<V1ControllerRevision>(configuration, {
          method: 'PUT',
          path: apiPath(`${REVISIONS}/{name}`, { namespace, name }),
          body: { value: revision, type: 'V1ControllerRevision' },
          answer: { type: 'V1ControllerRevision' },
        }),
      );
      return withKind(updated, ...REVISION);
    },
    async deleteControllerRevision({ namespace, name, uid, resourceVersion }) {
      await kubeCall(`deleting controller revision ${namespace}/${name} (uid ${uid})`, () =>
        sendKubeRequest(configuration, {
          method: 'DELETE',
          path: apiPath(`${REVISIONS}/{name}`, { namespace, name }),
          body: { value: { preconditions: { uid, resourceVersion } }, type: 'V1DeleteOptions' },
          answer: { type: 'V1Status' },
        }),
      );
    },
    async createEvent(event: CoreV1Event) {
      const namespace = event.metadata?.namespace ?? event.involvedObject.namespace ?? 'default';
      const about = `${event.involvedObject.kind} ${event.involvedObject.namespace ?? ''}/${event.involvedObject.name}`;
      await kubeCall(`recording event ${event.reason} on ${about}`, () =>
        sendKubeRequest(configuration, {
          method: 'POST',
          path: apiPath('/api/v1/namespaces/{namespace}/events', { namespace }),
          body: { value: event, type: 'CoreV1Event' },
          answer: { type: 'CoreV1Event' },
        }),
      );
    },
  };
}
