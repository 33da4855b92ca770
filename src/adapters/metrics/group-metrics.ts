import { Counter, Gauge, type Registry } from 'prom-client';

/** Several instances on Redis (docs/scale-out.md): the leader lease and the change stream. */
export interface GroupMetrics {
  readonly groupLeader: Gauge;
  readonly groupLeaseRenewals: Counter;
  readonly groupTakeovers: Counter;
  readonly groupVersionsBehind: Gauge;
}

export function createGroupMetrics(registers: Registry[]): GroupMetrics {
  return {
    groupLeader: new Gauge({
      name: 'catalog_bridge_group_leader',
      help: 'With several instances on Redis: whether this instance holds the leader lease (1) or follows (0)',
      registers,
    }),
    groupLeaseRenewals: new Counter({
      name: 'catalog_bridge_group_lease_renewals_total',
      help: 'Renewals of the leader lease by this instance',
      registers,
    }),
    groupTakeovers: new Counter({
      name: 'catalog_bridge_group_takeovers_total',
      help: 'Times this instance took the leader lease (at start, or when the leader was gone)',
      registers,
    }),
    groupVersionsBehind: new Gauge({
      name: 'catalog_bridge_group_versions_behind',
      help: "Changes in the group's change stream this instance has not applied yet (0: it serves the group's current version)",
      registers,
    }),
  };
}
