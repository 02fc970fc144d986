import type { V1PolicyRule } from '@kubernetes/client-node';
import { describe, expect, it } from 'vitest';
import { type RbacObjects, rbacAuthorizer, rbacPolicyOf } from '../../../lib/sim/auth/rbac-authorizer.ts';
import type { RequestAttributes } from '../../../lib/sim/auth/request-attributes.ts';
import {
  aClusterRole,
  aClusterRoleBinding,
  aResourceRequest,
  aRole,
  aRoleBinding,
  aUser,
  groupSubject,
  serviceAccountSubject,
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

const readPods: V1PolicyRule = { verbs: ['get', 'list'], apiGroups: [''], resources: ['pods'] };
const bob = aUser('system:serviceaccount:team:builder');

const bindingCases: Case[] = [
  {
    name: 'a RoleBinding to a ClusterRole grants it in the binding namespace',
    objects: {
      clusterRoles: [aClusterRole('reader', readPods)],
      roleBindings: [
        aRoleBinding('team', 'rb', { kind: 'ClusterRole', name: 'reader' }, userSubject('alice')),
      ],
    },
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'team' }),
    decision: {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/team" of ClusterRole "reader" to User "alice"',
    },
  },
  {
    name: 'a RoleBinding to a ClusterRole grants nothing in another namespace',
    objects: {
      clusterRoles: [aClusterRole('reader', readPods)],
      roleBindings: [
        aRoleBinding('team', 'rb', { kind: 'ClusterRole', name: 'reader' }, userSubject('alice')),
      ],
    },
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'other' }),
    decision: denied,
  },
  {
    name: 'a RoleBinding grants nothing across namespaces',
    objects: {
      clusterRoles: [aClusterRole('reader', readPods)],
      roleBindings: [
        aRoleBinding('team', 'rb', { kind: 'ClusterRole', name: 'reader' }, userSubject('alice')),
      ],
    },
    request: aResourceRequest(alice, 'list', 'pods'),
    decision: denied,
  },
  {
    name: 'a RoleBinding to a Role of its namespace',
    objects: {
      roles: [aRole('team', 'reader', readPods)],
      roleBindings: [aRoleBinding('team', 'rb', { kind: 'Role', name: 'reader' }, groupSubject('dev'))],
    },
    request: aResourceRequest(alice, 'get', 'pods', { namespace: 'team', name: 'p' }),
    decision: {
      allowed: true,
      reason: 'RBAC: allowed by RoleBinding "rb/team" of Role "reader" to Group "dev"',
    },
  },
  {
    name: 'a ServiceAccount subject with its namespace',
    objects: {
      clusterRoles: [aClusterRole('reader', readPods)],
      clusterRoleBindings: [aClusterRoleBinding('b', 'reader', serviceAccountSubject('builder', 'team'))],
    },
    request: aResourceRequest(bob, 'list', 'pods'),
    decision: {
      allowed: true,
      reason:
        'RBAC: allowed by ClusterRoleBinding "b" of ClusterRole "reader" to ServiceAccount "builder/team"',
    },
  },
  {
    name: "a ServiceAccount subject without a namespace is the RoleBinding namespace's",
    objects: {
      clusterRoles: [aClusterRole('reader', readPods)],
      roleBindings: [
        aRoleBinding('team', 'rb', { kind: 'ClusterRole', name: 'reader' }, serviceAccountSubject('builder')),
      ],
    },
    request: aResourceRequest(bob, 'list', 'pods', { namespace: 'team' }),
    decision: {
      allowed: true,
      reason:
        'RBAC: allowed by RoleBinding "rb/team" of ClusterRole "reader" to ServiceAccount "builder/team"',
    },
  },
  {
    name: 'a ServiceAccount subject of another namespace',
    objects: {
      clusterRoles: [aClusterRole('reader', readPods)],
      clusterRoleBindings: [aClusterRoleBinding('b', 'reader', serviceAccountSubject('builder', 'other'))],
    },
    request: aResourceRequest(bob, 'list', 'pods'),
    decision: denied,
  },
  {
    name: 'a user not among the subjects',
    objects: grantingAlice(readPods),
    request: aResourceRequest(aUser('mallory'), 'list', 'pods', { namespace: 'default' }),
    decision: denied,
  },
  {
    name: 'system:masters without any binding',
    objects: {},
    request: aResourceRequest(aUser('root', 'system:masters'), 'delete', 'nodes', { name: 'n1' }),
    decision: { allowed: true },
  },
  {
    name: 'no binding at all: denied with no reason, as upstream',
    objects: {},
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'default' }),
    decision: denied,
  },
  {
    name: 'a binding to a ClusterRole that does not exist: the error is the reason',
    objects: { clusterRoleBindings: [aClusterRoleBinding('b', 'gone', userSubject('alice'))] },
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'default' }),
    decision: { allowed: false, reason: 'RBAC: clusterrole.rbac.authorization.k8s.io "gone" not found' },
  },
  {
    name: 'two unresolvable bindings: the errors aggregated',
    objects: {
      clusterRoleBindings: [aClusterRoleBinding('b', 'gone', userSubject('alice'))],
      roleBindings: [aRoleBinding('team', 'rb', { kind: 'Role', name: 'missing' }, userSubject('alice'))],
    },
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'team' }),
    decision: {
      allowed: false,
      reason:
        'RBAC: [clusterrole.rbac.authorization.k8s.io "gone" not found, role.rbac.authorization.k8s.io "missing" not found]',
    },
  },
  {
    name: 'an unresolvable binding does not hide one that allows',
    objects: {
      clusterRoles: [aClusterRole('r', readPods)],
      clusterRoleBindings: [
        aClusterRoleBinding('a-gone', 'gone', userSubject('alice')),
        aClusterRoleBinding('b', 'r', userSubject('alice')),
      ],
    },
    request: aResourceRequest(alice, 'list', 'pods', { namespace: 'default' }),
    decision: allowedToAlice,
  },
];

describe('rbacAuthorizer', () => {
  it.each(bindingCases)('bindings and subjects: $name', ({ objects, request, decision }) => {
    expect(rbacAuthorizer(rbacPolicyOf(objects))(request)).toEqual(decision);
  });
});
