/**
 * GET /openapi/v2: the Swagger 2.0 document of every served resource, built once per process from
 * the type table behind /openapi/v3, served as kube-openapi's handler does (pkg/handler/handler.go
 * RegisterOpenAPIVersionedService): JSON for `application/json`, gnostic protobuf for
 * `application/com.github.proto-openapi.spec.v2[@.]v1.0+protobuf` (what client-go asks for, and
 * what kubectl validates a `kind: List` with on the client), 406 otherwise; an ETag (the SHA-512 of
 * the JSON), `Vary: Accept`, 304 on a matching If-None-Match, and gzip when the client accepts it.
 */
import { createHash } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { gzipSync } from 'node:zlib';
import { resources } from '../schema/resources.ts';
import { parseAccept } from './api-response.ts';
import { v2Definitions } from './openapi-v2-definitions.ts';
import { resourceV2Paths } from './openapi-v2-paths.ts';
import { openApiV2DocumentProto } from './openapi-v2-proto.ts';

/** The media type of the protobuf form, as the real server labels its responses. */
export const openApiV2ProtobufType = 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf';

interface Served {
  readonly json: Buffer;
  readonly proto: Buffer;
  readonly etag: string;
  readonly lastModified: string;
  readonly gzipped: Map<Buffer, Buffer>;
}

let served: Served | undefined;

function buildDocument(): Record<string, unknown> {
  let paths: Record<string, unknown> = {};
  for (const r of resources) paths = { ...paths, ...resourceV2Paths(r) };
  return {
    swagger: '2.0',
    // The version /version reports (lib/sim/apiserver/api-routes.ts serverVersion.gitVersion).
    info: { title: 'Kubernetes', version: 'v1.33.1' },
    paths,
    definitions: v2Definitions(),
    securityDefinitions: {
      BearerToken: {
        description: 'Bearer Token authentication',
        type: 'apiKey',
        name: 'authorization',
        in: 'header',
      },
    },
    security: [{ BearerToken: [] }],
  };
}

function servedDocument(): Served {
  if (!served) {
    const document = buildDocument();
    const json = Buffer.from(JSON.stringify(document));
    served = {
      json,
      proto: Buffer.from(openApiV2DocumentProto(document)),
      etag: createHash('sha512').update(json).digest('hex').toUpperCase(),
      lastModified: new Date().toUTCString(),
      gzipped: new Map(),
    };
  }
  return served;
}

/** The Swagger 2.0 document served at /openapi/v2 (a fresh copy of the cached document). */
export function openApiV2Document(): Record<string, unknown> {
  return JSON.parse(servedDocument().json.toString('utf8')) as Record<string, unknown>;
}

/** The same document as a serialised gnostic `openapi.v2.Document` (cached; do not modify). */
export function openApiV2Protobuf(): Uint8Array {
  return servedDocument().proto;
}

const offered = [
  { type: 'application/json', protobuf: false },
  { type: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf', protobuf: true },
  { type: 'application/com.github.proto-openapi.spec.v2.v1.0+protobuf', protobuf: true },
];

/**
 * Which form `accept` gets: the first offered type matching the best media range (goautoneg order:
 * by q, then the more specific range), 'json' or 'protobuf', or undefined when none matches (406).
 */
export function openApiV2Negotiate(accept: string | undefined): 'json' | 'protobuf' | undefined {
  const ranges = parseAccept(accept?.trim() ? accept : '*/*')
    .map((r, index) => {
      const [type = '', subtype = ''] = r.type.split('/');
      const q = r.params.q === undefined ? 1 : Number(r.params.q);
      return { type, subtype, q, index, wildcards: (type === '*' ? 1 : 0) + (subtype === '*' ? 1 : 0) };
    })
    .sort((a, b) => b.q - a.q || a.wildcards - b.wildcards || a.index - b.index);
  for (const range of ranges) {
    const match = offered.find(({ type }) => {
      const [t, s] = type.split('/');
      return (range.type === '*' || range.type === t) && (range.subtype === '*' || range.subtype === s);
    });
    if (match) return match.protobuf ? 'protobuf' : 'json';
  }
  return undefined;
}

/** Answers GET or HEAD /openapi/v2 on `res` as kube-openapi's OpenAPIService handler does. */
export function serveOpenApiV2(req: IncomingMessage, res: ServerResponse): void {
  const form = openApiV2Negotiate(req.headers.accept);
  if (!form) {
    res.writeHead(406, { Vary: 'Accept', 'Content-Length': 0 });
    res.end();
    return;
  }
  const doc = servedDocument();
  const headers: Record<string, string | number> = {
    Vary: 'Accept',
    'Content-Type': form === 'json' ? 'application/json' : openApiV2ProtobufType,
    Etag: `"${doc.etag}"`,
    'Last-Modified': doc.lastModified,
  };
  if (req.headers['if-none-match'] === headers.Etag) {
    res.writeHead(304, headers);
    res.end();
    return;
  }
  let body = form === 'json' ? doc.json : doc.proto;
  if (/\bgzip\b/.test(String(req.headers['accept-encoding'] ?? ''))) {
    const gzipped = doc.gzipped.get(body) ?? gzipSync(body);
    doc.gzipped.set(body, gzipped);
    body = gzipped;
    headers['Content-Encoding'] = 'gzip';
  }
  res.writeHead(200, { ...headers, 'Content-Length': body.length });
  res.end(req.method === 'HEAD' ? undefined : body);
}
