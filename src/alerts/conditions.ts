/**
 * Custom conditions: an FK-DSL `SCAN ... WHERE ...` statement, evaluated every
 * `check_interval_seconds`. The condition holds when the scan matches at least one instrument; the
 * alert fires when it starts to hold (armed), with the matches in the event's data, and re-arms
 * once a check finds no match. The FK-DSL itself is reached through this port (fk-dsl-conditions.ts
 * implements it on the FK-DSL service).
 */
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { Alert, CustomConditionTrigger } from './alert.model.ts';
import type { AlertEvent } from './alert-event.model.ts';
import { enabledAlertsByTrigger, setAlertArmed } from './alerts.repository.ts';
import type { AlertEpisodes } from './episodes.service.ts';
import type { AlertFiring } from './firing.ts';

export interface ConditionMatch {
  readonly symbol: string;
  readonly assetType: string;
  readonly values: Readonly<Record<string, number | null>>;
}

export interface ConditionPort {
  /** Throws a clear error (naming the problem) when `condition` is not one valid SCAN statement. */
  check(condition: string): void;
  /** The instruments the scan matches now. */
  matches(condition: string, owner: string): Promise<ConditionMatch[]>;
}

/** Whether a condition alert is due at `now`: on the minutes its interval divides. */
export function conditionDue(trigger: CustomConditionTrigger, now: Date): boolean {
  const minutes = Math.max(1, Math.round(trigger.checkIntervalSeconds / 60));
  return Math.floor(now.getTime() / 60_000) % minutes === 0;
}

/** The event of a condition that started to hold: one per alert per minute. */
export function conditionEvent(
  trigger: CustomConditionTrigger,
  found: readonly ConditionMatch[],
  now: Date,
): AlertEvent {
  const only = found.length === 1 ? found[0] : undefined;
  return {
    id: `custom_condition:${Math.floor(now.getTime() / 60_000)}`,
    type: 'custom_condition',
    severity: 'medium',
    description: `${trigger.condition} matches ${found.map((m) => m.symbol).join(', ')}`,
    asset: only ? { symbol: only.symbol, assetType: only.assetType } : null,
    occurredAt: now,
    watchdog: null,
    data: {
      condition: trigger.condition,
      matches: found.map((m) => ({ symbol: m.symbol, values: m.values })),
    },
    sample: false,
  };
}

export interface ConditionOptions {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly port: ConditionPort;
  readonly firing: AlertFiring;
  /** Ends the episode of a condition that cleared (episodes.service.ts); none: episodes are not ended here. */
  readonly episodes?: Pick<AlertEpisodes, 'resolveCleared'>;
}

export class ConditionEvaluator {
  readonly #o: ConditionOptions;

  constructor(options: ConditionOptions) {
    this.#o = options;
  }

  async evaluate(): Promise<number> {
    const now = this.#o.clock.now();
    const alerts = await enabledAlertsByTrigger(this.#o.db, ['custom_condition']);
    let fired = 0;
    for (const alert of alerts) {
      const { trigger } = alert;
      if (trigger.type !== 'custom_condition' || !conditionDue(trigger, now)) continue;
      try {
        if (await this.#one(alert, trigger, now)) fired++;
      } catch (error) {
        this.#o.logger.warn({ err: error, alertId: alert.id }, 'custom condition could not be evaluated');
      }
    }
    return fired;
  }

  async #one(alert: Alert, trigger: CustomConditionTrigger, now: Date): Promise<boolean> {
    const found = await this.#o.port.matches(trigger.condition, alert.owner);
    const holds = found.length > 0;
    const armed = !holds;
    if (armed !== alert.armed) await setAlertArmed(this.#o.db, alert, armed);
    // No match any more: the condition's episode is over.
    if (armed && !alert.armed) await this.#o.episodes?.resolveCleared(alert);
    if (!holds || !alert.armed) return false;
    return (await this.#o.firing.fire(alert, conditionEvent(trigger, found, now))) === 'fired';
  }
}
