/**
 * Alerts: create, read, replace, delete, enable and disable, each as the caller's principal (an
 * alert belongs to whoever created it; admins see every owner's). A rejected write changes
 * nothing: the input is checked whole before the one statement that stores it.
 */
import { and, desc, eq } from 'drizzle-orm';
import { hasScope, type Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import { AppError, NotFoundError, ValidationError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import { type AlertInput, alertInputSchema, issuesOf } from './alert.schema.ts';
import { type AlertRow, type AlertView, alertView } from './alert.view.ts';
import {
  alertDeliveries,
  alertDeliveryAttempts,
  alertFirings,
  alerts,
  type StoredAlertConfig,
} from './alerts.sql.ts';
import type { ConditionPort } from './conditions.ts';
import { type AlertSecrets, SECRET_FIELDS, type SecretBox } from './secrets.ts';

export interface AlertServiceOptions {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secrets: SecretBox;
  /** Checks a custom condition when one is written (the FK-DSL, through its port). */
  readonly conditions?: Pick<ConditionPort, 'check'>;
}

/** The body does not fit the schema (422 on REST, `details.issues` lists every problem). */
export class InvalidAlertError extends AppError {
  constructor(issues: readonly { field: string; message: string }[]) {
    const first = issues[0];
    super(
      'INVALID_ARGUMENTS',
      first
        ? `invalid alert: ${first.field}: ${first.message}${issues.length > 1 ? ` (and ${issues.length - 1} more)` : ''}`
        : 'invalid alert',
      { issues, ...(first ? { field: first.field } : {}) },
    );
  }
}

export interface DeliveryRecord {
  readonly delivery_id: string;
  readonly attempt: number;
  readonly method: string;
  readonly status: string;
  readonly response_code: number | null;
  readonly latency_ms: number;
  readonly error: string | null;
  readonly attempted_at: string;
}

export class AlertService {
  readonly #o: AlertServiceOptions;

  constructor(options: AlertServiceOptions) {
    this.#o = options;
  }

  /** Parses a body as written by a client; InvalidAlertError names every bad field. */
  parse(body: unknown): AlertInput {
    const parsed = alertInputSchema.safeParse(body);
    if (!parsed.success) throw new InvalidAlertError(issuesOf(parsed.error));
    const { trigger } = parsed.data;
    if (trigger.type === 'custom_condition' && this.#o.conditions) {
      try {
        this.#o.conditions.check(trigger.condition);
      } catch (error) {
        throw new InvalidAlertError([{ field: 'trigger.condition', message: (error as Error).message }]);
      }
    }
    return parsed.data;
  }

  async create(principal: Principal, body: unknown): Promise<AlertView> {
    const input = this.parse(body);
    const now = this.#o.clock.now();
    const values = this.#row(principal.id, input, {}, now);
    const [row] = await this.#o.db
      .insert(alerts)
      .values({ ...values, createdAt: now })
      .onConflictDoNothing()
      .returning();
    if (!row)
      throw new ValidationError('alert_id', `an alert with id ${JSON.stringify(input.alert_id)} exists`);
    this.#o.logger.info({ alertId: row.id, owner: row.owner }, 'alert created');
    return alertView(row);
  }

  async list(principal: Principal, enabledOnly = false): Promise<AlertView[]> {
    const admin = hasScope(principal, 'admin');
    const rows = await this.#o.db
      .select()
      .from(alerts)
      .where(
        and(
          admin ? undefined : eq(alerts.owner, principal.id),
          enabledOnly ? eq(alerts.enabled, true) : undefined,
        ),
      )
      .orderBy(alerts.createdAt, alerts.id);
    return rows.map((r) => alertView(r, admin && r.owner !== principal.id));
  }

  async get(principal: Principal, id: string): Promise<AlertView> {
    return alertView(await this.row(principal, id));
  }

  /** The stored row of the caller's alert (NOT_FOUND for anyone else's, as for an unknown id). */
  async row(principal: Principal, id: string, db: Executor = this.#o.db): Promise<AlertRow> {
    const [row] = await db
      .select()
      .from(alerts)
      .where(and(eq(alerts.owner, principal.id), eq(alerts.id, id)));
    if (!row) throw new NotFoundError('alert', id);
    return row;
  }

  /**
   * Replaces the alert with `body` (a full alert). A secret left out keeps its stored value (no
   * answer ever shows it, so a client that read the alert cannot send it back); `null` removes it.
   */
  async replace(principal: Principal, id: string, body: unknown): Promise<AlertView> {
    const bodyId = (body as { alert_id?: unknown } | null)?.alert_id;
    const input = this.parse(
      bodyId === undefined && body && typeof body === 'object' ? { ...body, alert_id: id } : body,
    );
    if (input.alert_id !== id) {
      throw new ValidationError(
        'alert_id',
        `is ${JSON.stringify(input.alert_id)} but the path names ${JSON.stringify(id)}`,
      );
    }
    const stored = await this.row(principal, id);
    const kept = this.secretsOf(stored);
    const now = this.#o.clock.now();
    const values = this.#row(principal.id, input, kept, now);
    const [row] = await this.#o.db
      .update(alerts)
      .set(values)
      .where(and(eq(alerts.owner, principal.id), eq(alerts.id, id)))
      .returning();
    if (!row) throw new NotFoundError('alert', id);
    return alertView(row);
  }

  async delete(principal: Principal, id: string): Promise<void> {
    const owner = principal.id;
    await this.#o.db.transaction(async (tx) => {
      const [gone] = await tx
        .delete(alerts)
        .where(and(eq(alerts.owner, owner), eq(alerts.id, id)))
        .returning({ id: alerts.id });
      if (!gone) throw new NotFoundError('alert', id);
      const same = (t: typeof alertFirings | typeof alertDeliveries | typeof alertDeliveryAttempts) =>
        and(eq(t.owner, owner), eq(t.alertId, id));
      await tx.delete(alertDeliveryAttempts).where(same(alertDeliveryAttempts));
      await tx.delete(alertDeliveries).where(same(alertDeliveries));
      await tx.delete(alertFirings).where(same(alertFirings));
    });
  }

  async setEnabled(principal: Principal, id: string, enabled: boolean): Promise<AlertView> {
    const [row] = await this.#o.db
      .update(alerts)
      .set({ enabled, updatedAt: this.#o.clock.now() })
      .where(and(eq(alerts.owner, principal.id), eq(alerts.id, id)))
      .returning();
    if (!row) throw new NotFoundError('alert', id);
    return alertView(row);
  }

  /** The delivery record of one of the caller's alerts: every attempt, newest first. */
  async deliveries(principal: Principal, id: string, limit = 100): Promise<DeliveryRecord[]> {
    await this.row(principal, id);
    const rows = await this.#o.db
      .select()
      .from(alertDeliveryAttempts)
      .where(and(eq(alertDeliveryAttempts.owner, principal.id), eq(alertDeliveryAttempts.alertId, id)))
      .orderBy(desc(alertDeliveryAttempts.attemptedAt), desc(alertDeliveryAttempts.attempt))
      .limit(Math.min(Math.max(limit, 1), 1_000));
    return rows.map((r) => ({
      delivery_id: r.deliveryId,
      attempt: r.attempt,
      method: r.method,
      status: r.status,
      response_code: r.responseCode,
      latency_ms: r.latencyMs,
      error: r.error,
      attempted_at: r.attemptedAt.toISOString(),
    }));
  }

  /** Secrets of a stored alert, for delivery only. */
  secretsOf(row: AlertRow): AlertSecrets {
    return this.#o.secrets.open(`${row.owner}:${row.id}`, row.secrets);
  }

  #row(owner: string, input: AlertInput, kept: AlertSecrets, now: Date) {
    const given: AlertSecrets = {
      smtp_password: input.email_config?.smtp_password ?? undefined,
      bot_token: input.chat_config?.bot_token ?? undefined,
      auth_token: input.webhook_config?.auth_token ?? undefined,
      signing_secret: input.webhook_config?.signing_secret ?? undefined,
    };
    const explicit = (config: Record<string, unknown> | null | undefined, key: string) =>
      config != null && key in config;
    const configs = { email: input.email_config, chat: input.chat_config, webhook: input.webhook_config };
    const holder = {
      smtp_password: configs.email,
      bot_token: configs.chat,
      auth_token: configs.webhook,
      signing_secret: configs.webhook,
    };
    // Written: the given value; `null` given: removed; not given: the stored one, while its config remains.
    const secrets: AlertSecrets = {};
    for (const field of SECRET_FIELDS) {
      const config = holder[field] as Record<string, unknown> | null | undefined;
      if (given[field] !== undefined) secrets[field] = given[field];
      else if (config && !explicit(config, field) && kept[field] !== undefined) secrets[field] = kept[field];
    }
    const strip = (config: Record<string, unknown> | null | undefined) => {
      if (!config) return null;
      const { smtp_password: _p, bot_token: _b, auth_token: _a, signing_secret: _s, ...rest } = config;
      return rest;
    };
    const config: StoredAlertConfig = {
      trigger: input.trigger as Record<string, unknown>,
      email_config: strip(input.email_config),
      chat_config: strip(input.chat_config),
      webhook_config: strip(input.webhook_config),
    };
    return {
      owner,
      id: input.alert_id,
      name: input.name,
      description: input.description,
      enabled: input.enabled,
      triggerType: input.trigger.type,
      config,
      deliveryMethods: input.delivery_methods,
      cooldownSeconds: input.cooldown_seconds,
      secrets: this.#o.secrets.seal(`${owner}:${input.alert_id}`, secrets),
      secretFields: Object.keys(secrets),
      armed: true,
      updatedAt: now,
    };
  }
}
