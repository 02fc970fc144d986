import { describe, expect, it } from 'vitest';
import { InvalidError } from '../../lib/kube/errors/kube-api-errors.ts';
import { isPatchNotApplied } from '../../lib/kube/errors/patch-not-applied.ts';
import { apiErrorOf } from '../../lib/kube/errors/to-kube-error.ts';

/** An error answer with a metav1.Status body, as kube-apiserver sends it. */
const answer = (code: number, reason: string, message: string, details: Record<string, unknown> = {}) =>
  apiErrorOf(
    { code, body: { kind: 'Status', status: 'Failure', reason, message, details, code }, headers: {} },
    'patching pod default/agent-n1',
  );

describe('isPatchNotApplied', () => {
  const cases = [
    {
      name: 'a failed test op, as kube-apiserver answers it (NewGenericServerResponse: one cause, no field)',
      error: answer(422, 'Invalid', 'the server rejected our request due to an error in our request', {
        causes: [
          { reason: 'UnexpectedServerResponse', message: 'testing value /metadata/uid failed: test failed' },
        ],
      }),
      notApplied: true,
    },
    {
      name: 'a path the pod lacks, the message in the Status itself (no cause)',
      error: answer(
        422,
        'Invalid',
        'test operation does not apply: is missing path: /spec/containers/1/name',
      ),
      notApplied: true,
    },
    {
      name: 'a resize pods/resize refuses (causes name their fields)',
      error: answer(422, 'Invalid', 'Pod "agent-n1" is invalid: …', {
        name: 'agent-n1',
        kind: 'Pod',
        causes: [
          {
            reason: 'FieldValueForbidden',
            message: 'Forbidden: memory limits cannot be decreased unless resizePolicy is RestartContainer',
            field: 'spec.containers[0].resources.limits[memory]',
          },
        ],
      }),
      notApplied: false,
    },
    {
      name: 'a pod that is gone (404)',
      error: answer(404, 'NotFound', 'pods "agent-n1" not found'),
      notApplied: false,
    },
    {
      name: 'a conflict (409)',
      error: answer(409, 'Conflict', 'the object has been modified'),
      notApplied: false,
    },
    { name: 'not an API error', error: new Error('socket hang up'), notApplied: false },
  ];

  it.each(cases)('$name', ({ error, notApplied }) => {
    expect(isPatchNotApplied(error)).toBe(notApplied);
    if (notApplied) expect(error).toBeInstanceOf(InvalidError);
  });
});
