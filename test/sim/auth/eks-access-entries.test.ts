import { describe, expect, it } from 'vitest';
import {
  canonicalPrincipal,
  type EksAccessEntry,
  EksTokenRejected,
  eksUser,
} from '../../../lib/sim/auth/eks-access-entries.ts';

const reconcileRole: EksAccessEntry = {
  principalArn: 'arn:aws:iam::111122223333:role/everynode/everynode-reconcile',
  groups: ['everynode:reconcile'],
};
const alice: EksAccessEntry = {
  principalArn: 'arn:aws:iam::111122223333:user/alice',
  groups: ['dev', 'ops'],
};
const templated: EksAccessEntry = {
  principalArn: 'arn:aws:iam::111122223333:role/sso-admin',
  username: 'admin:{{AccountID}}:{{SessionName}}:{{SessionNameRaw}}:{{AccessKeyID}}',
  groups: ['admins'],
};
const entries = [reconcileRole, alice, templated];

describe('eksUser', () => {
  it.each([
    {
      name: 'a role session: the EKS default username, the role path ignored',
      arn: 'arn:aws:sts::111122223333:assumed-role/everynode-reconcile/reconcile-fn',
      user: {
        name: 'arn:aws:sts::111122223333:assumed-role/everynode-reconcile/reconcile-fn',
        groups: ['everynode:reconcile'],
      },
    },
    {
      name: 'an IAM user: its ARN',
      arn: 'arn:aws:iam::111122223333:user/alice',
      user: { name: 'arn:aws:iam::111122223333:user/alice', groups: ['dev', 'ops'] },
    },
    {
      name: 'a username template, @ made - in {{SessionName}} only',
      arn: 'arn:aws:sts::111122223333:assumed-role/sso-admin/jane@example.com',
      user: {
        name: 'admin:111122223333:jane-example.com:jane@example.com:ASIAKEY',
        groups: ['admins'],
      },
    },
  ])('maps $name', ({ arn, user }) => {
    expect(eksUser({ arn, accessKeyId: 'ASIAKEY' }, entries)).toEqual(user);
  });

  it.each([
    { name: 'a role of no access entry', arn: 'arn:aws:sts::111122223333:assumed-role/other/s' },
    {
      name: 'the same role name in another account',
      arn: 'arn:aws:sts::444455556666:assumed-role/sso-admin/s',
    },
    { name: 'an IAM user of no access entry', arn: 'arn:aws:iam::111122223333:user/bob' },
  ])('rejects $name', ({ arn }) => {
    expect(() => eksUser({ arn, accessKeyId: 'AKID' }, entries)).toThrow(EksTokenRejected);
    expect(() => eksUser({ arn, accessKeyId: 'AKID' }, entries)).toThrow('no access entry for');
  });
});

describe('canonicalPrincipal', () => {
  it.each([
    {
      arn: 'arn:aws:sts::111122223333:assumed-role/r/s',
      expected: { kind: 'role', canonicalArn: 'arn:aws:iam::111122223333:role/r', sessionName: 's' },
    },
    {
      arn: 'arn:aws-cn:sts::111122223333:assumed-role/r/s',
      expected: { kind: 'role', canonicalArn: 'arn:aws-cn:iam::111122223333:role/r', partition: 'aws-cn' },
    },
    {
      arn: 'arn:aws:iam::111122223333:user/path/u',
      expected: { kind: 'user', canonicalArn: 'arn:aws:iam::111122223333:user/path/u' },
    },
    { arn: 'arn:aws:iam::111122223333:root', expected: { kind: 'root' } },
    { arn: 'arn:aws:sts::111122223333:federated-user/f', expected: { kind: 'federated-user' } },
  ])('canonicalizes $arn', ({ arn, expected }) => {
    expect(canonicalPrincipal(arn)).toMatchObject(expected);
  });

  it.each([
    { arn: 'not-an-arn', message: "arn 'not-an-arn' is invalid" },
    { arn: 'arn:aws:sts::111122223333:assumed-role/r', message: 'does not have a role' },
    { arn: 'arn:aws:s3:::bucket', message: 'is invalid' },
    { arn: 'arn:aws:ec2::111122223333:instance/i-1', message: 'is not a valid identity' },
  ])('rejects $arn', ({ arn, message }) => {
    expect(() => canonicalPrincipal(arn)).toThrow(message);
  });
});
