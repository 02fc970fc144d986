import type { V1PolicyRule } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type RbacObjects, rbacAuthorizer, rbacPolicyOf } from '../../../lib/sim/auth/rbac-authorizer.ts';
import type { RequestAttributes } from '../../../lib/sim/auth/request-attributes.ts';
import {
  aClusterRole,
  aClusterRoleBinding,
  aPathRequest,
  aResourceRequest,
  aUser,
  userSubject,
} from '../../support/rbac-builders.ts';

const alice = aUser('alice', 'dev');

/** Objects granting `rule` to user alice through a ClusterRoleBinding. */
function grantingAlice(rule: V1PolicyRule): RbacObjects {
  return {
    clusterRoles: [aClusterRole('r', rule)],
    clusterRoleBindings: [aClusterRoleBinding('b', 'r', userSubject('alice'))],
  };
}

const allowedToAlice = {
  allowed: true,
  reason: 'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "r" to User "alice"',
};
const denied = { allowed: false };

interface Case {
  readonly name: string;
  readonly objects: RbacObjects;
  readonly request: RequestAttributes;
  readonly decision: { allowed: boolean; reason?: string };
}

const ruleCases: Case[] = [
  {
    name: 'verbs: a listed verb',
    objects: grantingAlice({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }),
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'default' }),
    decision: allowedToAlice,
  },
  {
    name: 'verbs: a verb not listed',
    objects: grantingAlice({ verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] }),
    request: aResourceRequest(alice, 'delete', 'pods', { namespace: 'default', name: 'p' }),
    decision: denied,
  },
  {
    name: 'verbs: * is every verb',
    objects: grantingAlice({ verbs: ['*'], apiGroups: [''], resources: ['pods'] }),
    request: aResourceRequest(alice, 'deletecollection', 'pods', { namespace: 'default' }),
    decision: allowedToAlice,
  },
  {
    name: 'apiGroups: "" is the core group only',
    objects: grantingAlice({ verbs: ['get'], apiGroups: [''], resources: ['daemonsets'] }),
    request: aResourceRequest(alice, 'get', 'daemonsets', { group: 'apps', namespace: 'default', name: 'd' }),
    decision: denied,
  },
  {
    name: 'apiGroups: a named group',
    objects: grantingAlice({ verbs: ['get'], apiGroups: ['everynode.dev'], resources: ['daemonsets'] }),
    request: aResourceRequest(alice, 'get', 'daemonsets', {
      group: 'everynode.dev',
      namespace: 'a',
      name: 'd',
    }),
    decision: allowedToAlice,
  },
  {
    name: 'apiGroups: * is every group',
    objects: grantingAlice({ verbs: ['get'], apiGroups: ['*'], resources: ['daemonsets'] }),
    request: aResourceRequest(alice, 'get', 'daemonsets', { group: 'apps', namespace: 'a', name: 'd' }),
    decision: allowedToAlice,
  },
  {
    name: 'resources: * is every resource',
    objects: grantingAlice({ verbs: ['list'], apiGroups: [''], resources: ['*'] }),
    request: aResourceRequest(alice, 'list', 'nodes'),
    decision: allowedToAlice,
  },
  {
    name: 'resources: a resource does not cover its subresources',
    objects: grantingAlice({ verbs: ['update'], apiGroups: ['apps'], resources: ['daemonsets'] }),
    request: aResourceRequest(alice, 'update', 'daemonsets/status', {
      group: 'apps',
      namespace: 'a',
      name: 'd',
    }),
    decision: denied,
  },
  {
    name: 'resources: resource/subresource covers that subresource',
    objects: grantingAlice({ verbs: ['update'], apiGroups: ['apps'], resources: ['daemonsets/status'] }),
    request: aResourceRequest(alice, 'update', 'daemonsets/status', {
      group: 'apps',
      namespace: 'a',
      name: 'd',
    }),
    decision: allowedToAlice,
  },
  {
    name: 'resources: resource/subresource does not cover the resource',
    objects: grantingAlice({ verbs: ['update'], apiGroups: ['apps'], resources: ['daemonsets/status'] }),
    request: aResourceRequest(alice, 'update', 'daemonsets', { group: 'apps', namespace: 'a', name: 'd' }),
    decision: denied,
  },
  {
    name: 'resources: */subresource covers it on any resource',
    objects: grantingAlice({ verbs: ['get'], apiGroups: ['*'], resources: ['*/status'] }),
    request: aResourceRequest(alice, 'get', 'pods/status', { namespace: 'a', name: 'p' }),
    decision: allowedToAlice,
  },
  {
    name: 'resources: */subresource does not cover the resource itself',
    objects: grantingAlice({ verbs: ['get'], apiGroups: ['*'], resources: ['*/status'] }),
    request: aResourceRequest(alice, 'get', 'pods', { namespace: 'a', name: 'p' }),
    decision: denied,
  },
  {
    name: 'resourceNames: a request naming a listed object',
    objects: grantingAlice({
      verbs: ['get'],
      apiGroups: [''],
      resources: ['namespaces'],
      resourceNames: ['kube-system'],
    }),
    request: aResourceRequest(alice, 'get', 'namespaces', { name: 'kube-system' }),
    decision: allowedToAlice,
  },
  {
    name: 'resourceNames: a request naming another object',
    objects: grantingAlice({
      verbs: ['get'],
      apiGroups: [''],
      resources: ['namespaces'],
      resourceNames: ['kube-system'],
    }),
    request: aResourceRequest(alice, 'get', 'namespaces', { name: 'default' }),
    decision: denied,
  },
  {
    name: 'resourceNames: never a list, which names no object',
    objects: grantingAlice({
      verbs: ['list'],
      apiGroups: [''],
      resources: ['namespaces'],
      resourceNames: ['kube-system'],
    }),
    request: aResourceRequest(alice, 'list', 'namespaces'),
    decision: denied,
  },
  {
    name: 'resourceNames: never a create, which names no object',
    objects: grantingAlice({ verbs: ['create'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }),
    request: aResourceRequest(alice, 'create', 'pods', { namespace: 'default' }),
    decision: denied,
  },
  {
    name: 'resourceNames: a watch selecting one name by field is about that object',
    objects: grantingAlice({ verbs: ['watch'], apiGroups: [''], resources: ['pods'], resourceNames: ['p'] }),
    request: aResourceRequest(alice, 'watch', 'pods', { namespace: 'default', name: 'p' }),
    decision: allowedToAlice,
  },
  {
    name: 'nonResourceURLs: the exact path',
    objects: grantingAlice({ verbs: ['get'], nonResourceURLs: ['/version'] }),
    request: aPathRequest(alice, 'get', '/version'),
    decision: allowedToAlice,
  },
  {
    name: 'nonResourceURLs: a trailing * is a prefix',
    objects: grantingAlice({ verbs: ['get'], nonResourceURLs: ['/apis/*'] }),
    request: aPathRequest(alice, 'get', '/apis/apps/v1'),
    decision: allowedToAlice,
  },
  {
    name: 'nonResourceURLs: a prefix rule does not cover the path without its slash',
    objects: grantingAlice({ verbs: ['get'], nonResourceURLs: ['/apis/*'] }),
    request: aPathRequest(alice, 'get', '/apis'),
    decision: denied,
  },
  {
    name: 'nonResourceURLs: another path',
    objects: grantingAlice({ verbs: ['get'], nonResourceURLs: ['/version'] }),
    request: aPathRequest(alice, 'get', '/logs'),
    decision: denied,
  },
  {
    name: 'nonResourceURLs: the verb must match too',
    objects: grantingAlice({ verbs: ['get'], nonResourceURLs: ['*'] }),
    request: aPathRequest(alice, 'post', '/logs'),
    decision: denied,
  },
  {
    name: 'nonResourceURLs: a resource rule grants no path',
    objects: grantingAlice({ verbs: ['*'], apiGroups: ['*'], resources: ['*'] }),
    request: aPathRequest(alice, 'get', '/version'),
    decision: denied,
  },
];

describe('rbacAuthorizer rule matching (RuleAllows)', () => {
  it.each(ruleCases)('$name', ({ objects, request, decision }) => {
    expect(rbacAuthorizer(rbacPolicyOf(objects))(request)).toEqual(decision);
  });
});
