import { describe, expect, it } from 'vitest';
import { keepAliveAgent } from '../../lib/kube/connection/keep-alive-agent.ts';
import {
  connectionFromKubeConfig,
  KubeConfigError,
  loadKubeConfig,
} from '../../lib/kube/connection/kubeconfig-connection.ts';
import { useTinyApiServer } from './tiny-api-server.ts';
import { kubeconfigFor } from './tiny-kube-port.ts';

const server = useTinyApiServer();

function withUser(user: string): string {
  return kubeconfigFor(server.url).replace(
    /users:\n- name: tester\n {2}user:\n {4}token: test-token/,
    `users:\n- name: tester\n  user:\n${user}`,
  );
}

describe('connectionFromKubeConfig', () => {
  const exec = [
    '    exec:',
    '      apiVersion: client.authentication.k8s.io/v1',
    `      command: ${process.execPath}`,
    '      args:',
    `      - -e`,
    `      - 'console.log(JSON.stringify({apiVersion:"client.authentication.k8s.io/v1",kind:"ExecCredential",status:{token:"from-exec"}}))'`,
    '      interactiveMode: Never',
  ].join('\n');

  it.each([
    { name: 'a static token', user: '    token: abc', authorization: 'Bearer abc' },
    {
      name: 'basic auth',
      user: '    username: u\n    password: p',
      authorization: `Basic ${Buffer.from('u:p').toString('base64')}`,
    },
    { name: 'an exec credential plugin', user: exec, authorization: 'Bearer from-exec' },
  ])('authenticates with $name', async ({ user, authorization }) => {
    const connection = connectionFromKubeConfig(loadKubeConfig({ yaml: withUser(user) }));
    expect(await connection.authHeaders()).toMatchObject({ Authorization: authorization });
    expect(connection.server).toBe(server.url);
    expect(connection.description).not.toContain('abc');
  });

  it('shares one agent per process for the same server settings', () => {
    const a = connectionFromKubeConfig(loadKubeConfig({ yaml: kubeconfigFor(server.url, 'one') }));
    const b = connectionFromKubeConfig(loadKubeConfig({ yaml: kubeconfigFor(server.url, 'two') }));
    expect(a.agent).toBe(b.agent);
    expect(a.agent).toBe(keepAliveAgent(server.url, { rejectUnauthorized: false }));
  });

  it('fails with KubeConfigError for an unreadable kubeconfig', () => {
    expect(() => loadKubeConfig({ path: '/nonexistent/kubeconfig' })).toThrow(KubeConfigError);
  });
});
