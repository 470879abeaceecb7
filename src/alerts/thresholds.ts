/**
 * Price and volume threshold triggers, evaluated every minute (one job across all instances).
 *
 * A threshold fires when it is crossed, not while it stays crossed: an alert is `armed` until it
 * fires, and re-arms only once the value is back on the other side by the hysteresis band
 * (`hysteresis_percent` of the threshold), so a price hovering at the threshold fires once.
 * Volume is the session's volume so far (what a quote reports); it re-arms when it is back at or
 * under the threshold (a new session).
 */
import { and, eq, inArray } from 'drizzle-orm';
import { resolveInstrument } from '../market-data/instruments.ts';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { AlertTrigger } from './alert.schema.ts';
import type { AlertRow } from './alert.view.ts';
import { alerts } from './alerts.sql.ts';
import type { AlertEvent, AlertFiring } from './firing.ts';

type PriceTrigger = Extract<AlertTrigger, { type: 'price_threshold' }>;
type VolumeTrigger = Extract<AlertTrigger, { type: 'volume_threshold' }>;

export interface ThresholdStep {
  readonly fire: boolean;
  readonly armed: boolean;
}

export function priceStep(trigger: PriceTrigger, price: number, armed: boolean): ThresholdStep {
  const t = trigger.price_threshold;
  const band = (t * trigger.hysteresis_percent) / 100;
  const crossed = trigger.direction === 'above' ? price > t : price < t;
  const cleared = trigger.direction === 'above' ? price < t - band : price > t + band;
  if (armed && crossed) return { fire: true, armed: false };
  if (!armed && cleared) return { fire: false, armed: true };
  return { fire: false, armed };
}

export function volumeStep(trigger: VolumeTrigger, volume: number, armed: boolean): ThresholdStep {
  if (armed && volume > trigger.volume_threshold) return { fire: true, armed: false };
  if (!armed && volume <= trigger.volume_threshold) return { fire: false, armed: true };
  return { fire: false, armed };
}

export interface ThresholdOptions {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly marketData: Pick<MarketDataService, 'quote' | 'withinOperation'>;
  readonly firing: AlertFiring;
}

/** The client threshold checks' upstream calls are charged to (as watchdogs charge theirs). */
export const THRESHOLD_CLIENT_ID = 'alerts';

export class ThresholdEvaluator {
  readonly #o: ThresholdOptions;

  constructor(options: ThresholdOptions) {
    this.#o = options;
  }

  /** One round over every enabled threshold alert; returns how many fired. */
  async evaluate(): Promise<number> {
    const rows = await this.#o.db
      .select()
      .from(alerts)
      .where(
        and(eq(alerts.enabled, true), inArray(alerts.triggerType, ['price_threshold', 'volume_threshold'])),
      );
    let fired = 0;
    for (const alert of rows) {
      try {
        if (await this.#one(alert)) fired++;
      } catch (error) {
        this.#o.logger.warn({ err: error, alertId: alert.id }, 'threshold alert could not be evaluated');
      }
    }
    return fired;
  }

  async #one(alert: AlertRow): Promise<boolean> {
    const trigger = alert.config.trigger as unknown as PriceTrigger | VolumeTrigger;
    const instrument = resolveInstrument(trigger.symbol);
    const quote = (
      await this.#o.marketData.withinOperation(THRESHOLD_CLIENT_ID, () =>
        this.#o.marketData.quote(instrument),
      )
    ).value;
    const value = trigger.type === 'price_threshold' ? quote.price : quote.volume;
    if (value === null || value === undefined || !Number.isFinite(value)) return false;
    const step =
      trigger.type === 'price_threshold'
        ? priceStep(trigger, value, alert.armed)
        : volumeStep(trigger, value, alert.armed);
    if (step.armed !== alert.armed) {
      await this.#o.db
        .update(alerts)
        .set({ armed: step.armed })
        .where(and(eq(alerts.owner, alert.owner), eq(alerts.id, alert.id)));
    }
    if (!step.fire) return false;
    const now = this.#o.clock.now();
    const threshold = trigger.type === 'price_threshold' ? trigger.price_threshold : trigger.volume_threshold;
    const what = trigger.type === 'price_threshold' ? 'price' : 'volume';
    const direction = trigger.type === 'price_threshold' ? trigger.direction : 'above';
    const event: AlertEvent = {
      // One event per alert per crossing: the minute it was seen in.
      event_id: `${trigger.type}:${Math.floor(now.getTime() / 60_000)}`,
      type: trigger.type,
      severity: 'medium',
      description: `${trigger.symbol} ${what} ${value} is ${direction} the threshold ${threshold}`,
      asset: { symbol: trigger.symbol, asset_type: instrument.assetClass },
      timestamp: now.toISOString(),
      watchdog: null,
      data: { [what]: value, threshold, direction, as_of: quote.asOf.toISOString() },
      metadata: {},
    };
    return (await this.#o.firing.fire(alert, event)) === 'fired';
  }
}
