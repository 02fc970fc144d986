/**
 * The relay's CloudWatch metric, published as embedded metric format in its logs: a heartbeat
 * with every checkpoint write of the lease holder (every 5 s while a run watches), so a minute
 * without one means nobody watched the cluster for about that long (the stack's alarm).
 */

/** Where and under which name the relay publishes its heartbeat. */
export const RELAY_HEARTBEAT_METRIC = {
  namespace: 'everynode',
  /** Powertools' default dimension: `service`, the function's service name. */
  service: 'everynode-relay',
  name: 'RelayHeartbeats',
} as const;
