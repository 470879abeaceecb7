/**
 * The alert form's state (strings, as typed), its conversion to the API's AlertInput, light checks
 * before sending, and the mapping of the API's field errors (snake_case paths) onto the form.
 * The API's answer is the authority: the checks here only catch what would never get that far (an
 * empty required field, text where a number goes, which GraphQL would refuse without naming a field).
 */
import { type Alert, METHODS, type Method, type TriggerType } from './model.ts';
import { type NoiseState, noiseDefaults, noiseFromAlert, noiseInput } from './noise-model.ts';

export interface Header {
  name: string;
  value: string;
}

/** A recurring mute window as typed: days (none: every day), HH:MM start and end, an IANA zone. */
export interface MuteWindow {
  days: string[];
  start: string;
  end: string;
  timeZone: string;
}

/** A write-only secret: typed text replaces the stored one; `remove` clears it; neither keeps it. */
export interface Secret {
  value: string;
  remove: boolean;
  stored: boolean;
}

export interface FormState extends NoiseState {
  alertId: string;
  name: string;
  description: string;
  enabled: boolean;
  triggerType: TriggerType;
  eventTypes: string[];
  severities: string[];
  watchdogs: string[];
  assets: string;
  symbol: string;
  priceThreshold: string;
  direction: 'ABOVE' | 'BELOW';
  hysteresisPercent: string;
  volumeThreshold: string;
  condition: string;
  checkIntervalSeconds: string;
  methods: Record<Method, boolean>;
  toEmails: string;
  smtpHost: string;
  smtpPort: string;
  smtpUser: string;
  smtpPassword: Secret;
  useTls: boolean;
  fromEmail: string;
  chatIds: string;
  botToken: Secret;
  url: string;
  webhookMethod: 'POST' | 'PUT';
  headers: Header[];
  authToken: Secret;
  signingSecret: Secret;
  slackUrl: Secret;
  discordUrl: Secret;
  teamsUrl: Secret;
  alertmanagerUrl: string;
  routingKey: Secret;
  muteWindows: MuteWindow[];
  cooldownSeconds: string;
}

/** Field path (the API's snake_case) -> message. */
export type Errors = Record<string, string>;

const noSecret = (stored = false): Secret => ({ value: '', remove: false, stored });
const text = (v: string | number | null | undefined) => (v === null || v === undefined ? '' : String(v));

export function emptyForm(): FormState {
  return {
    alertId: '',
    name: '',
    description: '',
    enabled: true,
    triggerType: 'WATCHDOG_EVENT',
    eventTypes: [],
    severities: [],
    watchdogs: [],
    assets: '',
    symbol: '',
    priceThreshold: '',
    direction: 'ABOVE',
    hysteresisPercent: '0.5',
    volumeThreshold: '',
    condition: '',
    checkIntervalSeconds: '60',
    methods: Object.fromEntries(METHODS.map((m) => [m.id, false])) as Record<Method, boolean>,
    toEmails: '',
    smtpHost: '',
    smtpPort: '',
    smtpUser: '',
    smtpPassword: noSecret(),
    useTls: true,
    fromEmail: '',
    chatIds: '',
    botToken: noSecret(),
    url: '',
    webhookMethod: 'POST',
    headers: [],
    authToken: noSecret(),
    signingSecret: noSecret(),
    slackUrl: noSecret(),
    discordUrl: noSecret(),
    teamsUrl: noSecret(),
    alertmanagerUrl: '',
    routingKey: noSecret(),
    muteWindows: [],
    cooldownSeconds: '60',
    ...noiseDefaults(),
  };
}

export function fromAlert(a: Alert): FormState {
  const t = a.trigger;
  const f = t.eventFilter;
  return {
    ...emptyForm(),
    alertId: a.alertId,
    name: a.name,
    description: a.description,
    enabled: a.enabled,
    triggerType: t.type,
    eventTypes: f?.eventTypes ?? [],
    severities: f?.severities ?? [],
    watchdogs: f?.watchdogs ?? [],
    assets: (f?.assets ?? []).join(', '),
    symbol: text(t.symbol),
    priceThreshold: text(t.priceThreshold),
    direction: t.direction ?? 'ABOVE',
    hysteresisPercent: text(t.hysteresisPercent ?? 0.5),
    volumeThreshold: text(t.volumeThreshold),
    condition: text(t.condition),
    checkIntervalSeconds: text(t.checkIntervalSeconds ?? 60),
    methods: Object.fromEntries(METHODS.map((m) => [m.id, a.deliveryMethods.includes(m.id)])) as Record<
      Method,
      boolean
    >,
    toEmails: (a.emailConfig?.toEmails ?? []).join('\n'),
    smtpHost: text(a.emailConfig?.smtpHost),
    smtpPort: text(a.emailConfig?.smtpPort),
    smtpUser: text(a.emailConfig?.smtpUser),
    smtpPassword: noSecret(a.emailConfig?.hasPassword),
    useTls: a.emailConfig?.useTls ?? true,
    fromEmail: text(a.emailConfig?.fromEmail),
    chatIds: (a.chatConfig?.chatIds ?? []).join('\n'),
    botToken: noSecret(a.chatConfig?.hasBotToken),
    url: a.webhookConfig?.url ?? '',
    webhookMethod: a.webhookConfig?.method ?? 'POST',
    headers: (a.webhookConfig?.headers ?? []).map((h) => ({ ...h })),
    authToken: noSecret(a.webhookConfig?.hasAuthToken),
    signingSecret: noSecret(a.webhookConfig?.hasSigningSecret),
    slackUrl: noSecret(a.slackConfig?.hasWebhookUrl),
    discordUrl: noSecret(a.discordConfig?.hasWebhookUrl),
    teamsUrl: noSecret(a.teamsConfig?.hasWebhookUrl),
    alertmanagerUrl: a.alertmanagerConfig?.url ?? '',
    routingKey: noSecret(a.pagerdutyConfig?.hasRoutingKey),
    muteWindows: a.muteWindows.map((w) => ({ ...w, days: [...w.days] })),
    cooldownSeconds: text(a.cooldownSeconds),
    ...noiseFromAlert(a),
  };
}

/** "a, b\nc" -> ["a", "b", "c"]: lists are typed one per line or comma-separated. */
export function list(value: string): string[] {
  return value
    .split(/[\n,]/)
    .map((s) => s.trim())
    .filter(Boolean);
}

function num(value: string): number | undefined {
  return value.trim() === '' ? undefined : Number(value);
}

/** Left out (keep), null (remove) or the new value. */
function secret(s: Secret): string | null | undefined {
  if (s.value !== '') return s.value;
  return s.remove ? null : undefined;
}

/** Drops undefined members, so that "left out" reaches the API as left out. */
function compact<T extends Record<string, unknown>>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

function triggerInput(s: FormState): Record<string, unknown> {
  switch (s.triggerType) {
    case 'WATCHDOG_EVENT':
      return {
        type: s.triggerType,
        eventFilter: {
          eventTypes: s.eventTypes,
          severities: s.severities,
          assets: list(s.assets),
          watchdogs: s.watchdogs,
        },
      };
    case 'PRICE_THRESHOLD':
      return compact({
        type: s.triggerType,
        symbol: s.symbol.trim(),
        priceThreshold: num(s.priceThreshold),
        direction: s.direction,
        hysteresisPercent: num(s.hysteresisPercent),
      });
    case 'VOLUME_THRESHOLD':
      return compact({
        type: s.triggerType,
        symbol: s.symbol.trim(),
        volumeThreshold: num(s.volumeThreshold),
      });
    case 'CUSTOM_CONDITION':
      return compact({
        type: s.triggerType,
        condition: s.condition.trim(),
        checkIntervalSeconds: num(s.checkIntervalSeconds),
      });
  }
}

/** The AlertInput for createAlert / updateAlert (a whole alert: the update replaces it). */
export function toInput(s: FormState): Record<string, unknown> {
  const methods = (Object.keys(s.methods) as Method[]).filter((m) => s.methods[m]);
  const opt = (v: string) => (v.trim() === '' ? undefined : v.trim());
  return compact({
    alertId: s.alertId.trim(),
    name: s.name.trim(),
    description: s.description,
    enabled: s.enabled,
    trigger: triggerInput(s),
    deliveryMethods: methods,
    emailConfig: s.methods.EMAIL
      ? compact({
          toEmails: list(s.toEmails),
          smtpHost: opt(s.smtpHost),
          smtpPort: num(s.smtpPort),
          smtpUser: opt(s.smtpUser),
          smtpPassword: secret(s.smtpPassword),
          useTls: s.useTls,
          fromEmail: opt(s.fromEmail),
        })
      : undefined,
    chatConfig: s.methods.CHAT
      ? compact({ chatIds: list(s.chatIds), botToken: secret(s.botToken) })
      : undefined,
    webhookConfig: s.methods.WEBHOOK
      ? compact({
          url: s.url.trim(),
          method: s.webhookMethod,
          headers: s.headers
            .filter((h) => h.name.trim() || h.value)
            .map((h) => ({ name: h.name.trim(), value: h.value })),
          authToken: secret(s.authToken),
          signingSecret: secret(s.signingSecret),
        })
      : undefined,
    ...channelInputs(s),
    muteWindows: s.muteWindows.map((w) => ({
      days: w.days,
      start: w.start.trim(),
      end: w.end.trim(),
      timeZone: w.timeZone.trim(),
    })),
    cooldownSeconds: num(s.cooldownSeconds),
    ...noiseInput(s),
  });
}

/** The settings of the channels that take one URL or key (each only when its method is checked). */
function channelInputs(s: FormState): Record<string, unknown> {
  const url = (secretUrl: Secret) => compact({ webhookUrl: secret(secretUrl) });
  return compact({
    slackConfig: s.methods.SLACK ? url(s.slackUrl) : undefined,
    discordConfig: s.methods.DISCORD ? url(s.discordUrl) : undefined,
    teamsConfig: s.methods.TEAMS ? url(s.teamsUrl) : undefined,
    alertmanagerConfig: s.methods.ALERTMANAGER ? { url: s.alertmanagerUrl.trim() } : undefined,
    pagerdutyConfig: s.methods.PAGERDUTY ? compact({ routingKey: secret(s.routingKey) }) : undefined,
  });
}
