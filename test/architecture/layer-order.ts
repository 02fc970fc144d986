/**
 * The order of the source folders, stated once: the layers test enforces it, and the README's
 * layout section must state the same order (readme-layout.test.ts).
 */

/**
 * The layers, top to bottom. A module may import its own folder, any folder of a lower layer, and
 * the folders its row names besides; nothing else. The three runtimes share one layer and never
 * import each other: what they share lives below them.
 */
export const layers: readonly (readonly string[])[] = [
  ['functions', 'lib/cli', 'lib/kubectl-plugin'],
  ['lib/local'],
  ['lib/relay', 'lib/router', 'lib/reconcile'],
  ['lib/queue', 'lib/messages', 'lib/kube'],
  ['lib/core'],
  ['lib/errors', 'lib/log', 'lib/config'],
];

/** Imports allowed beside the layer order: within the message/queue/Kubernetes layer, downwards. */
export const besides: Readonly<Record<string, readonly string[]>> = {
  'lib/queue': ['lib/messages', 'lib/kube'],
  'lib/messages': ['lib/kube'],
  'lib/config': ['lib/errors'],
  'lib/log': ['lib/errors'],
  // The simulated cluster stands beside the pipeline: it reuses the pure decisions, nothing else.
  'lib/sim': ['lib/core', 'lib/errors'],
  // The command line starts the simulated cluster; the CDK app takes constants (names, defaults).
  'lib/cli': ['lib/sim'],
  infra: layers.slice(1).flat(),
};

/**
 * The sub-folders of the two runtimes that grew past a flat folder, top to bottom (the README's
 * layout table states the same order). A file imports its own folder, its own sub-folders and the
 * folders of a lower row; the folders of one row never import each other. No file sits beside them.
 */
export const subLayers: Readonly<Record<string, readonly (readonly string[])[]>> = {
  'lib/reconcile': [
    ['setup'],
    ['handler'],
    ['pair-step', 'daemon-set-step', 'node-step'],
    ['node-gates'],
    ['reads'],
    ['effects'],
    ['deps'],
    ['memory'],
  ],
  'lib/relay': [['run'], ['watches'], ['filters'], ['output'], ['cluster-view'], ['setup']],
};
