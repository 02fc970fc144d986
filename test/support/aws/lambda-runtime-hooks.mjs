// Module resolution hooks of the Lambda Node.js runtime as seen from a bundle: an ES module import
// of a runtime-provided package (`@aws-sdk/*`) that the task root cannot resolve is resolved from
// the NODE_PATH folders instead. Every other failure stands.
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

let parents = [];

export function initialize(data) {
  parents = String(data?.nodePath ?? '')
    .split(':')
    .filter((dir) => dir !== '')
    .map((dir) => pathToFileURL(join(dir, 'noop.js')).href);
}

export async function resolve(specifier, context, nextResolve) {
  try {
    return await nextResolve(specifier, context);
  } catch (error) {
    if (error?.code !== 'ERR_MODULE_NOT_FOUND' || !specifier.startsWith('@aws-sdk/')) throw error;
    for (const parentURL of parents) {
      try {
        return await nextResolve(specifier, { ...context, parentURL });
      } catch {
        // try the next folder
      }
    }
    throw error;
  }
}
