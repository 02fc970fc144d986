/**
 * The simulated API server's TLS material, made at start as kube-apiserver makes its own when it is
 * given no `--tls-cert-file` (client-go util/cert GenerateSelfSignedCertKeyWithFixtures): a CA
 * `<host>-ca@<unix time>` and a serving certificate `<host>@<unix time>` it signs, for the host's
 * IP addresses and DNS names, valid from an hour ago (clock skew) for a year. Built with
 * @peculiar/x509 over WebCrypto; never hand-written ASN.1.
 */
import { KeyObject, webcrypto } from 'node:crypto';
import { EverynodeError } from '../../errors/everynode-error.ts';

/** PEM texts of the CA and of the certificate and key the server presents. */
export interface ServingCertificates {
  /** The CA certificate clients trust (a kubeconfig's `certificate-authority-data`, decoded). */
  readonly caCertificate: string;
  /** The serving certificate, signed by the CA. */
  readonly certificate: string;
  /** The serving certificate's private key (PKCS #8). */
  readonly privateKey: string;
}

/** Options of generateServingCertificates. */
export interface ServingCertificateOptions {
  /** IP addresses the certificate is valid for; default `127.0.0.1`, where the simulator listens. */
  readonly ipAddresses?: readonly string[];
  /** DNS names the certificate is valid for; default `localhost`. */
  readonly dnsNames?: readonly string[];
  /** The clock; default the system clock. */
  readonly now?: () => Date;
}

/** The certificates could not be made (WebCrypto or the certificate library failed). Not retryable. */
export class ServingCertificateError extends EverynodeError {
  constructor(message: string, options: { cause?: unknown } = {}) {
    super(message, false, options);
  }
}

/**
 * ECDSA P-256 rather than upstream's RSA 2048: WebCrypto makes the key in milliseconds where RSA
 * takes a noticeable part of a second on a loaded machine, and kubectl, client-go, Node and curl
 * all accept it.
 */
const ALGORITHM = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' };
const HOUR_MS = 60 * 60 * 1000;
const YEAR_MS = 365 * 24 * HOUR_MS;

type X509 = typeof import('@peculiar/x509');

/**
 * The certificate library, loaded on first use: it needs the Reflect metadata polyfill installed
 * first (its dependency injection container checks for it at load), and only TLS runs pay for it.
 */
async function x509Library(): Promise<X509> {
  await import('reflect-metadata');
  return import('@peculiar/x509');
}

async function keyPair(): Promise<webcrypto.CryptoKeyPair> {
  return (await webcrypto.subtle.generateKey(ALGORITHM, true, ['sign', 'verify'])) as webcrypto.CryptoKeyPair;
}

function pemOfPrivateKey(key: webcrypto.CryptoKey): string {
  return KeyObject.from(key).export({ type: 'pkcs8', format: 'pem' }).toString();
}

/** What both certificates share: the library, the host and time stamp in their names, their validity. */
interface Issue {
  readonly x509: X509;
  readonly host: string;
  readonly stamp: number;
  readonly notBefore: Date;
  readonly notAfter: Date;
}

/** The self-signed CA `<host>-ca@<stamp>` and its keys. */
async function certificateAuthority(issue: Issue) {
  const { x509, notBefore, notAfter } = issue;
  const keys = await keyPair();
  const certificate = await x509.X509CertificateGenerator.createSelfSigned({
    name: [{ CN: [`${issue.host}-ca@${issue.stamp}`] }],
    keys,
    signingAlgorithm: ALGORITHM,
    notBefore,
    notAfter,
    extensions: [
      new x509.BasicConstraintsExtension(true, undefined, true),
      new x509.KeyUsagesExtension(
        x509.KeyUsageFlags.digitalSignature | x509.KeyUsageFlags.keyCertSign | x509.KeyUsageFlags.cRLSign,
        true,
      ),
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
    ],
  });
  return { certificate, keys };
}

/** The serving certificate `<host>@<stamp>` for `names`, signed by `ca`, and its keys. */
async function servingCertificate(
  issue: Issue,
  ca: Awaited<ReturnType<typeof certificateAuthority>>,
  names: { readonly ipAddresses: readonly string[]; readonly dnsNames: readonly string[] },
) {
  const { x509, notBefore, notAfter } = issue;
  const keys = await keyPair();
  const certificate = await x509.X509CertificateGenerator.create({
    subject: [{ CN: [`${issue.host}@${issue.stamp}`] }],
    issuer: ca.certificate.subject,
    publicKey: keys.publicKey,
    signingKey: ca.keys.privateKey,
    signingAlgorithm: ALGORITHM,
    notBefore,
    notAfter,
    extensions: servingExtensions(x509, names.ipAddresses, names.dnsNames, [
      await x509.SubjectKeyIdentifierExtension.create(keys.publicKey),
      await x509.AuthorityKeyIdentifierExtension.create(ca.keys.publicKey),
    ]),
  });
  return { certificate, keys };
}

/**
 * A fresh CA and a serving certificate signed by it for `ipAddresses` and `dnsNames` (default
 * 127.0.0.1 and localhost); throws a ServingCertificateError when they cannot be made.
 */
export async function generateServingCertificates(
  options: Readonly<ServingCertificateOptions> = {},
): Promise<ServingCertificates> {
  const ipAddresses = options.ipAddresses ?? ['127.0.0.1'];
  const dnsNames = options.dnsNames ?? ['localhost'];
  const host = ipAddresses[0] ?? dnsNames[0] ?? 'localhost';
  const now = (options.now ?? (() => new Date()))();
  try {
    const issue: Issue = {
      x509: await x509Library(),
      host,
      stamp: Math.floor(now.getTime() / 1000),
      notBefore: new Date(now.getTime() - HOUR_MS),
      notAfter: new Date(now.getTime() + YEAR_MS),
    };
    const ca = await certificateAuthority(issue);
    const serving = await servingCertificate(issue, ca, { ipAddresses, dnsNames });
    return {
      caCertificate: ca.certificate.toString('pem'),
      certificate: serving.certificate.toString('pem'),
      privateKey: pemOfPrivateKey(serving.keys.privateKey),
    };
  } catch (error) {
    const doing = `generating the TLS certificates of the simulated API server for ${host}`;
    throw new ServingCertificateError(doing, { cause: error });
  }
}

/** A server certificate's extensions: not a CA, signatures only, server auth, its names. */
function servingExtensions(
  x509: X509,
  ipAddresses: readonly string[],
  dnsNames: readonly string[],
  keyIdentifiers: readonly InstanceType<X509['Extension']>[],
): InstanceType<X509['Extension']>[] {
  return [
    new x509.BasicConstraintsExtension(false, undefined, true),
    new x509.KeyUsagesExtension(x509.KeyUsageFlags.digitalSignature, true),
    new x509.ExtendedKeyUsageExtension([x509.ExtendedKeyUsage.serverAuth]),
    new x509.SubjectAlternativeNameExtension([
      ...ipAddresses.map((value) => ({ type: 'ip' as const, value })),
      ...dnsNames.map((value) => ({ type: 'dns' as const, value })),
    ]),
    ...keyIdentifiers,
  ];
}
