// Bundling alias for `whatwg-url` (infra/constructs/pipeline-functions.ts). node-fetch 2, which
// @kubernetes/client-node uses, takes Node's own URL (`Url.URL || whatwgUrl.URL`) and needs the
// whatwg-url package only on runtimes without one; Lambda's Node.js 22 has it, so the bundle points
// the import here instead of carrying whatwg-url and its 260 KB tr46 table.
export const URL = globalThis.URL;
export const URLSearchParams = globalThis.URLSearchParams;
export default { URL, URLSearchParams };
