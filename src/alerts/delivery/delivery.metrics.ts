/**
 * The deliveries' metrics, on the app's registry. Labels are bounded: 3 methods, 3 attempt
 * outcomes, 2 delivery outcomes, 3 hold reasons, 4 waiting statuses. The queue's gauges are read
 * from the database when scraped (every instance sees the whole queue); the paused destinations
 * and the attempts under way are this instance's.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import { DELIVERY_METHODS, type DeliveryMethod } from '../alert.model.ts';
import { ATTEMPT_STATUSES, type AttemptStatus } from './delivery.model.ts';
import type { DeliveryQueue } from './delivery.repository.ts';

/** Why a delivery was given back without an attempt (delivery-gates.ts). */
export type HoldReason = 'busy' | 'owner' | 'destination';

/** What the runner reports (delivery.runner.ts); the metrics below, or nothing. */
export interface DeliveryObserver {
  /** An attempt ended with `outcome`. */
  attempted(method: DeliveryMethod, outcome: AttemptStatus): void;
  /** A delivery ended for good. */
  finished(method: DeliveryMethod, outcome: 'delivered' | 'failed'): void;
  /** A delivery was given back unattempted. */
  held(reason: HoldReason): void;
}

export interface DeliveryGaugeSources {
  /** The deliveries waiting, read when scraped. */
  readonly queue: () => Promise<DeliveryQueue>;
  /** This instance's destinations paused now. */
  readonly paused: () => number;
  /** This instance's attempts under way. */
  readonly inFlight: () => number;
}

const WAITING = ['pending', 'retrying', 'sending', 'held'] as const;

export function deliveryMetrics(registry: Registry, sources: DeliveryGaugeSources): DeliveryObserver {
  const registers = [registry];
  const deliveries = new Counter({
    name: 'vigil_alert_deliveries_total',
    help: 'Alert deliveries (one per target per firing) that ended on this instance, by method and outcome (delivered, failed).',
    labelNames: ['method', 'outcome'],
    registers,
  });
  const attempts = new Counter({
    name: 'vigil_alert_delivery_attempts_total',
    help: 'Alert delivery attempts made on this instance, by method and outcome (delivered, retry, failed).',
    labelNames: ['method', 'outcome'],
    registers,
  });
  const holds = new Counter({
    name: 'vigil_alert_delivery_holds_total',
    help: "Alert deliveries given back without an attempt on this instance, by reason (busy: no worker free; owner: its owner's share was taken; destination: its destination is paused).",
    labelNames: ['reason'],
    registers,
  });
  // One query per scrape feeds both queue gauges; one that fails or takes over a second is left
  // out of the scrape (as the job queues' depth is), rather than holding it.
  let reading: { at: number; queue: Promise<DeliveryQueue | undefined> } | undefined;
  const queue = () => {
    const now = performance.now();
    if (!reading || now - reading.at > 1_000) {
      let timer: ReturnType<typeof setTimeout> | undefined;
      const late = new Promise<undefined>((resolve) => {
        timer = setTimeout(() => resolve(undefined), 1_000);
      });
      const asked = sources.queue().catch(() => undefined);
      reading = { at: now, queue: Promise.race([asked, late]).finally(() => clearTimeout(timer)) };
    }
    return reading.queue;
  };
  new Gauge({
    name: 'vigil_alert_delivery_queue_depth',
    help: 'Alert deliveries not yet delivered or failed, by status (pending, retrying, sending, held), across instances.',
    labelNames: ['status'],
    registers,
    async collect() {
      const read = await queue();
      this.reset();
      if (read) for (const status of WAITING) this.set({ status }, read.byStatus[status] ?? 0);
    },
  });
  new Gauge({
    name: 'vigil_alert_delivery_oldest_pending_seconds',
    help: 'Age of the oldest alert delivery not yet delivered or failed (0 when none), across instances.',
    registers,
    async collect() {
      const read = await queue();
      this.reset();
      if (read) this.set(read.oldestSeconds);
    },
  });
  new Gauge({
    name: 'vigil_alert_delivery_paused_destinations',
    help: 'Delivery destinations (webhook hosts, SMTP servers, chat bots) this instance has paused after repeated failures, until one answers again.',
    registers,
    collect() {
      this.set(sources.paused());
    },
  });
  new Gauge({
    name: 'vigil_alert_delivery_attempts_in_flight',
    help: 'Alert delivery attempts under way on this instance.',
    registers,
    collect() {
      this.set(sources.inFlight());
    },
  });
  for (const method of DELIVERY_METHODS) {
    for (const outcome of ['delivered', 'failed']) deliveries.inc({ method, outcome }, 0);
    for (const outcome of ATTEMPT_STATUSES) attempts.inc({ method, outcome }, 0);
  }
  for (const reason of ['busy', 'owner', 'destination']) holds.inc({ reason }, 0);
  return {
    attempted: (method, outcome) => attempts.inc({ method, outcome }),
    finished: (method, outcome) => deliveries.inc({ method, outcome }),
    held: (reason) => holds.inc({ reason }),
  };
}
