import { describe, expect, it } from 'vitest';
import { isNamespaceGone } from '../../lib/kube/errors/namespace-gone.ts';
import { apiErrorOf } from '../../lib/kube/errors/to-kube-error.ts';

/** An error answer with a metav1.Status body, as kube-apiserver sends it. */
const answer = (code: number, reason: string, details: Record<string, unknown>) =>
  apiErrorOf(
    { code, body: { kind: 'Status', status: 'Failure', reason, details, code }, headers: {} },
    'creating',
  );

describe('isNamespaceGone', () => {
  const cases = [
    {
      name: 'a create in a terminating namespace (403, cause NamespaceTerminating)',
      error: answer(403, 'Forbidden', {
        name: 'agent-n1-abc',
        kind: 'pods',
        causes: [{ reason: 'NamespaceTerminating', message: 'namespace x is being terminated' }],
      }),
      gone: true,
    },
    {
      name: 'a create in a namespace that is gone (404 about namespaces)',
      error: answer(404, 'NotFound', { name: 'x', kind: 'namespaces' }),
      gone: true,
    },
    {
      name: 'a pod that is gone (404 about pods)',
      error: answer(404, 'NotFound', { name: 'p', kind: 'pods' }),
      gone: false,
    },
    { name: 'a 404 without details', error: answer(404, 'NotFound', {}), gone: false },
    {
      name: 'a 403 of RBAC (no cause)',
      error: answer(403, 'Forbidden', { name: 'p', kind: 'pods' }),
      gone: false,
    },
    { name: 'not an API error', error: new Error('socket hang up'), gone: false },
  ];
  it.each(cases)('$name: $gone', ({ error, gone }) => {
    expect(isNamespaceGone(error)).toBe(gone);
  });
});
