/** Where the seed DaemonSets (test/fixtures: fluentd-elasticsearch, demo) run on the six fixture nodes. */
export const seedPlacement: readonly string[] = [
  'kiada/demo@cordoned-1',
  'kiada/demo@worker-1',
  'kiada/demo@worker-ssd',
  'kube-system/fluentd-elasticsearch@cordoned-1',
  'kube-system/fluentd-elasticsearch@master-1',
  'kube-system/fluentd-elasticsearch@worker-1',
  'kube-system/fluentd-elasticsearch@worker-ssd',
];
