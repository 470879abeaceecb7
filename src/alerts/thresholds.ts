/**
 * Price and volume threshold triggers, evaluated every minute (one job across all instances).
 *
 * A threshold fires when it is crossed, not while it stays crossed: an alert is `armed` until it
 * fires, and re-arms only once the value is back on the other side by the hysteresis band
 * (`hysteresis_percent` of the threshold), so a price hovering at the threshold fires once.
 * Volume is the session's volume so far (what a quote reports); it re-arms when it is back at or
 * under the threshold (a new session).
 */
import { resolveInstrument } from '../market-data/instruments.ts';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type {
  Alert,
  PriceThresholdTrigger,
  ThresholdTrigger,
  VolumeThresholdTrigger,
} from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { enabledAlertsByTrigger, setAlertArmed } from './alerts.repository.ts';
import type { AlertEpisodes } from './episodes.service.ts';
import type { AlertFiring } from './firing.ts';

export interface ThresholdStep {
  readonly fire: boolean;
  readonly armed: boolean;
}

export function priceStep(trigger: PriceThresholdTrigger, price: number, armed: boolean): ThresholdStep {
  const t = trigger.priceThreshold;
  const band = (t * trigger.hysteresisPercent) / 100;
  const crossed = trigger.direction === 'above' ? price > t : price < t;
  const cleared = trigger.direction === 'above' ? price < t - band : price > t + band;
  if (armed && crossed) return { fire: true, armed: false };
  if (!armed && cleared) return { fire: false, armed: true };
  return { fire: false, armed };
}

export function volumeStep(trigger: VolumeThresholdTrigger, volume: number, armed: boolean): ThresholdStep {
  if (armed && volume > trigger.volumeThreshold) return { fire: true, armed: false };
  if (!armed && volume <= trigger.volumeThreshold) return { fire: false, armed: true };
  return { fire: false, armed };
}

/** The event of a crossing: one per alert per crossing, identified by the minute it was seen in. */
export function crossingEvent(
  trigger: ThresholdTrigger,
  reading: { readonly value: number; readonly assetType: string; readonly asOf: Date },
  now: Date,
): AlertEvent {
  const price = trigger.type === 'price_threshold';
  const threshold = price ? trigger.priceThreshold : trigger.volumeThreshold;
  const what = price ? 'price' : 'volume';
  const direction = price ? trigger.direction : 'above';
  return {
    id: `${trigger.type}:${Math.floor(now.getTime() / 60_000)}`,
    type: trigger.type,
    severity: 'medium',
    description: `${trigger.symbol} ${what} ${reading.value} is ${direction} the threshold ${threshold}`,
    asset: { symbol: trigger.symbol, assetType: reading.assetType },
    occurredAt: now,
    watchdog: null,
    data: { [what]: reading.value, threshold, direction, as_of: reading.asOf.toISOString() },
    sample: false,
  };
}

export interface ThresholdOptions {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly marketData: Pick<MarketDataService, 'quote' | 'withinOperation'>;
  readonly firing: AlertFiring;
  /** Ends the episode of a condition that cleared (episodes.service.ts); none: episodes are not ended here. */
  readonly episodes?: Pick<AlertEpisodes, 'resolveCleared'>;
}

/**
 * The client the alerts' own upstream calls (threshold quotes, condition scans) are charged to, as
 * watchdogs charge theirs.
 */
export const ALERTS_CLIENT_ID = 'alerts';

export class ThresholdEvaluator {
  readonly #o: ThresholdOptions;

  constructor(options: ThresholdOptions) {
    this.#o = options;
  }

  /** One round over every enabled threshold alert; returns how many fired. */
  async evaluate(): Promise<number> {
    const alerts = await enabledAlertsByTrigger(this.#o.db, ['price_threshold', 'volume_threshold']);
    let fired = 0;
    for (const alert of alerts) {
      if (alert.trigger.type !== 'price_threshold' && alert.trigger.type !== 'volume_threshold') continue;
      try {
        if (await this.#one(alert, alert.trigger)) fired++;
      } catch (error) {
        this.#o.logger.warn({ err: error, alertId: alert.id }, 'threshold alert could not be evaluated');
      }
    }
    return fired;
  }

  async #one(alert: Alert, trigger: ThresholdTrigger): Promise<boolean> {
    const instrument = resolveInstrument(trigger.symbol);
    const quote = (
      await this.#o.marketData.withinOperation(ALERTS_CLIENT_ID, () => this.#o.marketData.quote(instrument))
    ).value;
    const value = trigger.type === 'price_threshold' ? quote.price : quote.volume;
    if (value === null || value === undefined || !Number.isFinite(value)) return false;
    const step =
      trigger.type === 'price_threshold'
        ? priceStep(trigger, value, alert.armed)
        : volumeStep(trigger, value, alert.armed);
    if (step.armed !== alert.armed) await setAlertArmed(this.#o.db, alert, step.armed);
    // Back on the other side of the band: the crossing's episode is over.
    if (step.armed && !alert.armed) await this.#o.episodes?.resolveCleared(alert);
    if (!step.fire) return false;
    const reading = { value, assetType: instrument.assetClass, asOf: quote.asOf };
    const event = crossingEvent(trigger, reading, this.#o.clock.now());
    return (await this.#o.firing.fire(alert, event)) === 'fired';
  }
}
