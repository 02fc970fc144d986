/**
 * The everynode CustomResourceDefinition, read from the manifest the infrastructure ships
 * (infra/k8s/crd-daemonsets.everynode.dev.yaml), so the simulator serves exactly what users install:
 * its names, printer columns and schema.
 */
import { readFileSync } from 'node:fs';
import type { V1CustomResourceDefinition, V1CustomResourceDefinitionVersion } from '@kubernetes/client-node';
import { parse } from 'yaml';

/** The manifest, relative to this module so it resolves from any working directory. */
const manifestUrl = new URL('../../../infra/k8s/crd-daemonsets.everynode.dev.yaml', import.meta.url);

/** The CRD manifest cannot be read or is not a CustomResourceDefinition. */
export class CrdLoadError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CrdLoadError';
  }
}

let cached: V1CustomResourceDefinition | undefined;

function readManifest(): unknown {
  try {
    return parse(readFileSync(manifestUrl, 'utf8'));
  } catch (error) {
    throw new CrdLoadError(`reading the CRD manifest ${manifestUrl.pathname}`, { cause: error });
  }
}

function isCrd(value: unknown): value is V1CustomResourceDefinition {
  if (typeof value !== 'object' || value === null) return false;
  const crd = value as { kind?: unknown; spec?: { versions?: unknown; names?: unknown } };
  return crd.kind === 'CustomResourceDefinition' && Array.isArray(crd.spec?.versions) && !!crd.spec?.names;
}

/**
 * The CRD `daemonsets.everynode.dev` as declared in infra/k8s (a fresh copy on every call, parsed
 * once); throws `CrdLoadError` if the manifest is unreadable or not a CustomResourceDefinition.
 */
export function loadEverynodeCrd(): V1CustomResourceDefinition {
  if (!cached) {
    const manifest = readManifest();
    if (!isCrd(manifest)) {
      throw new CrdLoadError(
        `reading the CRD manifest ${manifestUrl.pathname}: not a CustomResourceDefinition`,
      );
    }
    cached = manifest;
  }
  return structuredClone(cached);
}

/** The served storage version of the CRD (v1), with its printer columns and schema. */
export function everynodeCrdVersion(): V1CustomResourceDefinitionVersion {
  const crd = loadEverynodeCrd();
  const version = crd.spec.versions.find((v) => v.served && v.storage);
  if (!version) throw new CrdLoadError('reading the CRD manifest: no served storage version');
  return version;
}
