// Installs the Lambda runtime's ES module fallback (lambda-runtime-hooks.mjs) in this process.
import { register } from 'node:module';

register('./lambda-runtime-hooks.mjs', import.meta.url, {
  data: { nodePath: process.env.NODE_PATH ?? '' },
});
