/**
 * Custom conditions: an FK-DSL `SCAN ... WHERE ...` statement, evaluated every
 * `check_interval_seconds`. The condition holds when the scan matches at least one instrument; the
 * alert fires when it starts to hold (armed), with the matches in the event's data, and re-arms
 * once a check finds no match. The FK-DSL itself is reached through this port (the composition
 * root wires it), so alerts import nothing of it.
 */
import { and, eq } from 'drizzle-orm';
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import type { Logger } from '../platform/observability/logger.ts';
import type { AlertTrigger } from './alert.schema.ts';
import type { AlertRow } from './alert.view.ts';
import { alerts } from './alerts.sql.ts';
import type { AlertEvent, AlertFiring } from './firing.ts';

type CustomTrigger = Extract<AlertTrigger, { type: 'custom_condition' }>;

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
export function conditionDue(trigger: CustomTrigger, now: Date): boolean {
  const minutes = Math.max(1, Math.round(trigger.check_interval_seconds / 60));
  return Math.floor(now.getTime() / 60_000) % minutes === 0;
}

export interface ConditionOptions {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly port: ConditionPort;
  readonly firing: AlertFiring;
}

export class ConditionEvaluator {
  readonly #o: ConditionOptions;

  constructor(options: ConditionOptions) {
    this.#o = options;
  }

  async evaluate(): Promise<number> {
    const now = this.#o.clock.now();
    const rows = await this.#o.db
      .select()
      .from(alerts)
      .where(and(eq(alerts.enabled, true), eq(alerts.triggerType, 'custom_condition')));
    let fired = 0;
    for (const alert of rows) {
      const trigger = alert.config.trigger as unknown as CustomTrigger;
      if (!conditionDue(trigger, now)) continue;
      try {
        if (await this.#one(alert, trigger, now)) fired++;
      } catch (error) {
        this.#o.logger.warn({ err: error, alertId: alert.id }, 'custom condition could not be evaluated');
      }
    }
    return fired;
  }

  async #one(alert: AlertRow, trigger: CustomTrigger, now: Date): Promise<boolean> {
    const found = await this.#o.port.matches(trigger.condition, alert.owner);
    const holds = found.length > 0;
    const armed = !holds;
    if (armed !== alert.armed) {
      await this.#o.db
        .update(alerts)
        .set({ armed })
        .where(and(eq(alerts.owner, alert.owner), eq(alerts.id, alert.id)));
    }
    if (!holds || !alert.armed) return false;
    const first = found[0]!;
    const event: AlertEvent = {
      event_id: `custom_condition:${Math.floor(now.getTime() / 60_000)}`,
      type: 'custom_condition',
      severity: 'medium',
      description: `${trigger.condition} matches ${found.map((m) => m.symbol).join(', ')}`,
      asset: found.length === 1 ? { symbol: first.symbol, asset_type: first.assetType } : null,
      timestamp: now.toISOString(),
      watchdog: null,
      data: {
        condition: trigger.condition,
        matches: found.map((m) => ({ symbol: m.symbol, values: m.values })),
      },
      metadata: {},
    };
    return (await this.#o.firing.fire(alert, event)) === 'fired';
  }
}
