import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { generateServingCertificates } from '../../../lib/sim/auth/serving-certificates.ts';

describe('generateServingCertificates', () => {
  const now = new Date('2026-03-04T05:06:07Z');
  const generated = generateServingCertificates({ now: () => now });

  it('makes a CA that signs a serving certificate for 127.0.0.1 and localhost', async () => {
    const { caCertificate, certificate } = await generated;
    const ca = new X509Certificate(caCertificate);
    const serving = new X509Certificate(certificate);
    expect(ca.ca).toBe(true);
    expect(serving.ca).toBe(false);
    expect(serving.verify(ca.publicKey)).toBe(true);
    expect(serving.checkIssued(ca)).toBe(true);
    expect(serving.checkIP('127.0.0.1')).toBe('127.0.0.1');
    expect(serving.checkHost('localhost')).toBe('localhost');
    expect(serving.checkHost('example.com')).toBeUndefined();
    expect(serving.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
  });

  it('names them as kube-apiserver names its self-signed pair, valid from an hour ago for a year', async () => {
    const { caCertificate, certificate } = await generated;
    const stamp = Math.floor(now.getTime() / 1000);
    const ca = new X509Certificate(caCertificate);
    const serving = new X509Certificate(certificate);
    expect(ca.subject).toBe(`CN=127.0.0.1-ca@${stamp}`);
    expect(serving.subject).toBe(`CN=127.0.0.1@${stamp}`);
    expect(serving.issuer).toBe(ca.subject);
    expect(new Date(serving.validFrom).toISOString()).toBe('2026-03-04T04:06:07.000Z');
    expect(new Date(serving.validTo).toISOString()).toBe('2027-03-04T05:06:07.000Z');
  });

  it('gives the private key of the serving certificate', async () => {
    const { certificate, privateKey } = await generated;
    expect(privateKey).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(new X509Certificate(certificate).checkPrivateKey(createPrivateKey(privateKey))).toBe(true);
  });

  it('makes a new CA every time', async () => {
    const again = await generateServingCertificates({ now: () => now });
    expect(again.caCertificate).not.toBe((await generated).caCertificate);
  });
});
