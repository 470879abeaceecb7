/**
 * Alerts: create, read, replace, delete, enable and disable, each as the caller's principal (an
 * alert belongs to whoever created it; admins see every owner's). A rejected write changes
 * nothing: the definition is checked whole before the one statement that stores it.
 */
import { hasScope, type Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import type { Executor } from '../platform/db/database.ts';
import { NotFoundError, ValidationError } from '../platform/errors.ts';
import type { Logger } from '../platform/observability/logger.ts';
import {
  type Alert,
  type AlertDefinition,
  type AlertKey,
  type AlertSecrets,
  SECRET_METHOD,
  SECRET_NAMES,
  type SecretName,
  type StoredSecrets,
} from './alert.model.ts';
import {
  type DestinationSettings,
  destinationIssues,
  NO_DESTINATION_SETTINGS,
} from './alert-destinations.rules.ts';
import { InvalidAlertError, TooManyAlertsError } from './alerts.errors.ts';
import {
  type AlertWrite,
  countAlerts,
  deleteAlert,
  deleteAlertRecords,
  findAlert,
  insertAlert,
  listAlerts,
  lockOwnerAlerts,
  setAlertEnabled,
  updateAlert,
} from './alerts.repository.ts';
import type { ConditionPort } from './conditions.ts';
import type { DeliveryAttempt } from './delivery/delivery.model.ts';
import { listAttempts } from './delivery/delivery.repository.ts';
import type { SecretBox } from './secrets.ts';

export interface AlertServiceOptions {
  readonly db: Executor;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly secrets: SecretBox;
  /** Checks a custom condition when one is written (the FK-DSL, through its port). */
  readonly conditions?: Pick<ConditionPort, 'check'>;
  /** The server's settings an alert's destinations and logins are checked against (none: nothing allowed). */
  readonly destinations?: DestinationSettings;
  /** ALERTS_MAX_PER_OWNER (unbounded when not given). */
  readonly maxPerOwner?: number;
}

export const MAX_ATTEMPTS_LISTED = 1_000;

export class AlertService {
  readonly #o: AlertServiceOptions;

  constructor(options: AlertServiceOptions) {
    this.#o = options;
  }

  /**
   * Stores a new alert, unless its owner has ALERTS_MAX_PER_OWNER already (TOO_MANY_ALERTS). The
   * count and the insert run in one transaction holding a lock per owner, so concurrent creates of
   * one owner are counted one after the other and never overshoot the limit.
   */
  async create(principal: Principal, definition: AlertDefinition): Promise<Alert> {
    this.#checkCondition(definition);
    const write = await this.#write(principal.id, definition, {});
    const limit = this.#o.maxPerOwner;
    const alert = await this.#o.db.transaction(async (tx) => {
      if (limit !== undefined) await lockOwnerAlerts(tx, principal.id);
      const inserted = await insertAlert(tx, write);
      // Counted with the new row (a duplicate id is refused as such first); over the limit, the
      // transaction rolls the insert back.
      if (inserted && limit !== undefined && (await countAlerts(tx, principal.id)) > limit)
        throw new TooManyAlertsError(limit);
      return inserted;
    });
    if (!alert)
      throw new ValidationError('alert_id', `an alert with id ${JSON.stringify(definition.id)} exists`);
    this.#o.logger.info({ alertId: alert.id, owner: alert.owner }, 'alert created');
    return alert;
  }

  /** The caller's alerts, oldest first; an admin's list holds every owner's. */
  list(principal: Principal, enabledOnly = false): Promise<Alert[]> {
    const owner = hasScope(principal, 'admin') ? undefined : principal.id;
    return listAlerts(this.#o.db, { owner, enabledOnly });
  }

  /** One of the caller's alerts (NOT_FOUND for anyone else's, as for an unknown id). */
  async get(principal: Principal, id: string): Promise<Alert> {
    const alert = await findAlert(this.#o.db, { owner: principal.id, id });
    if (!alert) throw new NotFoundError('alert', id);
    return alert;
  }

  /**
   * Replaces the alert `id` names with `definition` (a whole alert, whose id must be `id`). A secret
   * left out keeps its stored value (no answer ever shows it, so a client that read the alert cannot
   * send it back); `null` removes it.
   */
  async replace(principal: Principal, id: string, definition: AlertDefinition): Promise<Alert> {
    this.#checkCondition(definition);
    if (definition.id !== id) {
      throw new ValidationError(
        'alert_id',
        `is ${JSON.stringify(definition.id)} but the path names ${JSON.stringify(id)}`,
      );
    }
    const stored = await this.get(principal, id);
    const write = await this.#write(principal.id, definition, this.secretsOf(stored));
    const alert = await updateAlert(this.#o.db, write);
    if (!alert) throw new NotFoundError('alert', id);
    return alert;
  }

  /** Deletes the alert with its firings and delivery record, in one transaction. */
  async delete(principal: Principal, id: string): Promise<void> {
    const key: AlertKey = { owner: principal.id, id };
    await this.#o.db.transaction(async (tx) => {
      if (!(await deleteAlert(tx, key))) throw new NotFoundError('alert', id);
      await deleteAlertRecords(tx, key);
    });
  }

  async setEnabled(principal: Principal, id: string, enabled: boolean): Promise<Alert> {
    const alert = await setAlertEnabled(
      this.#o.db,
      { owner: principal.id, id },
      enabled,
      this.#o.clock.now(),
    );
    if (!alert) throw new NotFoundError('alert', id);
    return alert;
  }

  /** The delivery record of one of the caller's alerts: every attempt, newest first. */
  async deliveries(principal: Principal, id: string, limit = 100): Promise<DeliveryAttempt[]> {
    await this.get(principal, id);
    const bounded = Math.min(Math.max(limit, 1), MAX_ATTEMPTS_LISTED);
    return listAttempts(this.#o.db, { owner: principal.id, id }, bounded);
  }

  /** Secrets of a stored alert, for delivery only. */
  secretsOf(alert: Alert): AlertSecrets {
    return this.#o.secrets.open(`${alert.owner}:${alert.id}`, alert.secrets.sealed);
  }

  /** A custom condition must be one the FK-DSL accepts (named as the wire names it). */
  #checkCondition(definition: AlertDefinition): void {
    const { trigger } = definition;
    if (trigger.type !== 'custom_condition' || !this.#o.conditions) return;
    try {
      this.#o.conditions.check(trigger.condition);
    } catch (error) {
      throw new InvalidAlertError([{ field: 'trigger.condition', message: (error as Error).message }]);
    }
  }

  /** The row to store; InvalidAlertError when a destination or login is one that may not be used. */
  async #write(owner: string, definition: AlertDefinition, kept: AlertSecrets): Promise<AlertWrite> {
    const secrets = secretsToStore(definition, kept);
    const settings = this.#o.destinations ?? NO_DESTINATION_SETTINGS;
    const issues = await destinationIssues(definition, secrets, settings);
    if (issues.length > 0) throw new InvalidAlertError(issues);
    return {
      owner,
      definition,
      secrets: this.#seal(owner, definition.id, secrets),
      at: this.#o.clock.now(),
    };
  }

  #seal(owner: string, id: string, secrets: AlertSecrets): StoredSecrets {
    return {
      names: SECRET_NAMES.filter((name) => secrets[name] !== undefined),
      sealed: this.#o.secrets.seal(`${owner}:${id}`, secrets),
    };
  }
}

/**
 * The secrets a write leaves stored: a written value; for one left out, the stored value while its
 * method's configuration remains; nothing for one written as `null` or whose configuration went.
 */
export function secretsToStore(definition: AlertDefinition, kept: AlertSecrets): AlertSecrets {
  const secrets: { -readonly [K in SecretName]?: string } = {};
  for (const name of SECRET_NAMES) {
    const written = definition.secrets[name];
    const configured = definition[SECRET_METHOD[name]] !== null;
    const value =
      typeof written === 'string' ? written : written === undefined && configured ? kept[name] : undefined;
    if (value !== undefined) secrets[name] = value;
  }
  return secrets;
}
