import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { EC2Client } from '@aws-sdk/client-ec2';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ec2PrivateDnsNames } from '../../lib/router/ec2-private-dns.ts';

/** An EC2 Query API endpoint that knows one instance, as EC2 answers DescribeInstances. */
function ec2Endpoint(): Server {
  return createServer((req, res) => {
    let body = '';
    req.on('data', (chunk) => {
      body += chunk;
    });
    req.on('end', () => {
      const params = new URLSearchParams(body);
      const id = params.get('InstanceId.1');
      res.setHeader('Content-Type', 'text/xml;charset=UTF-8');
      if (params.get('Action') !== 'DescribeInstances') {
        res.statusCode = 400;
        return res.end(
          '<Response><Errors><Error><Code>InvalidAction</Code><Message>no</Message></Error></Errors></Response>',
        );
      }
      if (id === 'i-0000000000000dead') {
        res.statusCode = 400;
        return res.end(
          `<Response><Errors><Error><Code>InvalidInstanceID.NotFound</Code><Message>The instance ID '${id}' does not exist</Message></Error></Errors><RequestID>r</RequestID></Response>`,
        );
      }
      if (id === 'i-00000000000000503') {
        res.statusCode = 503;
        return res.end(
          '<Response><Errors><Error><Code>Unavailable</Code><Message>try later</Message></Error></Errors><RequestID>r</RequestID></Response>',
        );
      }
      res.end(
        `<DescribeInstancesResponse xmlns="http://ec2.amazonaws.com/doc/2016-11-15/"><requestId>r</requestId><reservationSet><item><reservationId>r-1</reservationId><instancesSet><item><instanceId>${id}</instanceId><privateDnsName>ip-10-0-1-23.eu-west-1.compute.internal</privateDnsName></item></instancesSet></item></reservationSet></DescribeInstancesResponse>`,
      );
    });
  });
}

describe('ec2PrivateDnsNames', () => {
  const server = ec2Endpoint();
  let lookup: (instanceId: string) => Promise<string | undefined>;

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const ec2 = new EC2Client({
      endpoint: `http://127.0.0.1:${port}`,
      region: 'eu-west-1',
      credentials: { accessKeyId: 'test', secretAccessKey: 'test' },
      maxAttempts: 1,
    });
    lookup = ec2PrivateDnsNames(ec2);
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('answers the private DNS name DescribeInstances gives', async () => {
    expect(await lookup('i-0123456789abcdef0')).toBe('ip-10-0-1-23.eu-west-1.compute.internal');
  });

  it('answers undefined for an instance EC2 does not know', async () => {
    expect(await lookup('i-0000000000000dead')).toBeUndefined();
  });

  it('rejects on other failures, so the trigger is retried', async () => {
    await expect(lookup('i-00000000000000503')).rejects.toThrow();
  });
});

describe('ec2PrivateDnsNames without a client', () => {
  const server = ec2Endpoint();
  const saved = { ...process.env };
  beforeAll(() => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)));
  afterAll(async () => {
    process.env = saved;
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('looks up with a client of the default configuration: endpoint, region and credentials from the environment', async () => {
    const lookup = ec2PrivateDnsNames();
    const { port } = server.address() as AddressInfo;
    Object.assign(process.env, {
      AWS_ENDPOINT_URL_EC2: `http://127.0.0.1:${port}`,
      AWS_REGION: 'eu-west-1',
      AWS_ACCESS_KEY_ID: 'test',
      AWS_SECRET_ACCESS_KEY: 'test',
    });
    expect(await lookup('i-0123456789abcdef0')).toBe('ip-10-0-1-23.eu-west-1.compute.internal');
    expect(await lookup('i-0000000000000dead')).toBeUndefined();
  });
});
