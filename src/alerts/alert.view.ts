/**
 * An alert as every surface returns it (snake_case, the compatibility shape): what was written,
 * without its secrets. A secret is only ever answered as `has_<name>: true`.
 */
import type { DeliveryMethod } from './alert.schema.ts';
import type { alerts } from './alerts.sql.ts';

export type AlertRow = typeof alerts.$inferSelect;

export interface AlertView {
  readonly alert_id: string;
  readonly name: string;
  readonly description: string;
  readonly enabled: boolean;
  readonly trigger: Record<string, unknown>;
  readonly delivery_methods: DeliveryMethod[];
  readonly email_config: Record<string, unknown> | null;
  readonly chat_config: Record<string, unknown> | null;
  readonly webhook_config: Record<string, unknown> | null;
  readonly cooldown_seconds: number;
  readonly created_at: string;
  readonly updated_at: string;
  readonly last_triggered: string | null;
  readonly trigger_count: number;
  /** Shown to admins, who see every owner's alerts. */
  readonly owner?: string;
}

export function alertView(row: AlertRow, showOwner = false): AlertView {
  const has = (field: string) => row.secretFields.includes(field);
  const { email_config, chat_config, webhook_config } = row.config;
  return {
    alert_id: row.id,
    name: row.name,
    description: row.description,
    enabled: row.enabled,
    trigger: row.config.trigger,
    delivery_methods: row.deliveryMethods,
    email_config: email_config ? { ...email_config, has_password: has('smtp_password') } : null,
    chat_config: chat_config ? { ...chat_config, has_bot_token: has('bot_token') } : null,
    webhook_config: webhook_config
      ? { ...webhook_config, has_auth_token: has('auth_token'), has_signing_secret: has('signing_secret') }
      : null,
    cooldown_seconds: row.cooldownSeconds,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
    last_triggered: row.lastTriggered?.toISOString() ?? null,
    trigger_count: row.triggerCount,
    ...(showOwner ? { owner: row.owner } : {}),
  };
}
