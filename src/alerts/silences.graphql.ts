import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { WatchdogEventTypeEnum } from '../watchdogs/watchdog-events.graphql.ts';
import { EventSeverityEnum, WatchdogNameEnum } from '../watchdogs/watchdogs.graphql.ts';
import { MAX_LIST } from './alert.model.ts';
import { alertsDeps } from './alerts.deps.ts';
import {
  MAX_SILENCE_SECONDS,
  MAX_SILENCES_PER_OWNER,
  type Silence,
  type SilenceMatchers,
  silenceState,
} from './silence.model.ts';
import type { SilenceInputWire } from './silence-input.wire.ts';

/**
 * Silences: queries and mutations, as the caller's principal (a silence silences only its owner's
 * alerts; anyone else's is NOT_FOUND). Inputs are turned into the wire silence and checked by the
 * one schema (silence-input.wire.ts): a bad field is INVALID_ARGUMENTS naming it in snake_case.
 */

const LIST = `at most ${MAX_LIST}; empty or absent: any`;

const SilenceStateEnum = builder.enumType('AlertSilenceState', {
  description: 'Where a silence is in its span.',
  values: enumValues({
    pending: 'It starts later.',
    active: 'In force: matching firings are recorded as `silenced` and deliver nothing.',
    expired: 'It ended (or was expired).',
  }),
});

const MatchersRef = builder.objectRef<SilenceMatchers>('AlertSilenceMatchers').implement({
  description:
    'Which firings a silence holds: the fields of an alert’s event filter plus alert ids, lists AND-ed, values inside one list OR-ed, an empty list matching any (an event about no asset passes an asset list). Value object: not normalised.',
  fields: (t) => ({
    eventTypes: t.field({
      type: [WatchdogEventTypeEnum],
      description: 'Event types (empty: any).',
      resolve: (m) => m.eventTypes,
    }),
    severities: t.field({
      type: [EventSeverityEnum],
      description: 'Severities (empty: any).',
      resolve: (m) => m.severities,
    }),
    assets: t.stringList({ description: 'Symbols, upper case.', resolve: (m) => m.assets }),
    watchdogs: t.field({
      type: [WatchdogNameEnum],
      description: 'Emitting watchdogs (empty: any).',
      resolve: (m) => m.watchdogs,
    }),
    alertIds: t.stringList({ description: 'Alert ids (empty: any).', resolve: (m) => m.alertIds }),
  }),
});

export const SilenceRef = builder.objectRef<Silence>('AlertSilence').implement({
  description: 'A silence: while active, the owner’s matching firings are recorded as `silenced`.',
  fields: (t) => ({
    id: t.exposeID('id', { description: 'Its id, chosen by the server; pass it to expire or delete it.' }),
    owner: t.exposeString('owner', {
      description: "Its owner's principal id (the API key's, or `anonymous`).",
    }),
    matchers: t.field({
      type: MatchersRef,
      description: 'Which firings it holds.',
      resolve: (s) => s.matchers,
    }),
    startsAt: t.field({
      type: 'DateTime',
      description: 'When it starts holding firings.',
      resolve: (s) => s.startsAt,
    }),
    endsAt: t.field({
      type: 'DateTime',
      description: 'When it stops (expiring it sets this to now).',
      resolve: (s) => s.endsAt,
    }),
    comment: t.exposeString('comment', { description: 'Why, as its creator wrote it.' }),
    createdBy: t.exposeString('createdBy', { description: 'The name of the key that created it.' }),
    createdAt: t.field({
      type: 'DateTime',
      description: 'When it was created.',
      resolve: (s) => s.createdAt,
    }),
    state: t.field({
      type: SilenceStateEnum,
      description: 'PENDING before startsAt, ACTIVE until endsAt, EXPIRED after.',
      resolve: (s, _args, ctx) => silenceState(s, alertsDeps(ctx).alerts.silences.now()),
    }),
  }),
});

const MatchersInput = builder.inputType('AlertSilenceMatchersInput', {
  description: 'Which firings the silence holds: lists AND-ed, values inside one list OR-ed.',
  fields: (t) => ({
    eventTypes: t.field({ type: [WatchdogEventTypeEnum], description: `Event types (${LIST}).` }),
    severities: t.field({ type: [EventSeverityEnum], description: `Severities (${LIST}).` }),
    assets: t.stringList({ description: `Symbols, AAPL or BTC/USDT (${LIST}).` }),
    watchdogs: t.field({ type: [WatchdogNameEnum], description: `Emitting watchdogs (${LIST}).` }),
    alertIds: t.stringList({ description: `The caller’s alert ids (${LIST}).` }),
  }),
});

const SilenceInput = builder.inputType('AlertSilenceInput', {
  description: `A silence: at most ${MAX_SILENCE_SECONDS / 86_400} days long, at most ${MAX_SILENCES_PER_OWNER} not ended per owner.`,
  fields: (t) => ({
    matchers: t.field({ type: MatchersInput, description: 'Absent: every firing of the caller’s alerts.' }),
    startsAt: t.field({ type: 'DateTime', description: 'Absent: now.' }),
    endsAt: t.field({ type: 'DateTime', required: true, description: 'After startsAt and in the future.' }),
    comment: t.string({ required: true, description: 'Why (1-1000 characters).' }),
  }),
});

function wireOf(input: typeof SilenceInput.$inferInput): SilenceInputWire {
  const m = input.matchers;
  return {
    ...(m
      ? {
          matchers: {
            event_types: m.eventTypes ?? [],
            severities: m.severities ?? [],
            assets: m.assets ?? [],
            watchdogs: m.watchdogs ?? [],
            alert_ids: m.alertIds ?? [],
          },
        }
      : {}),
    starts_at: input.startsAt ? input.startsAt.toISOString() : null,
    ends_at: input.endsAt.toISOString(),
    comment: input.comment,
  };
}

builder.queryField('alertSilences', (t) =>
  t.field({
    type: [SilenceRef],
    description: "The caller's silences by start (admins: every owner's); ended ones only when asked.",
    args: { includeExpired: t.arg.boolean({ defaultValue: false, description: 'True: ended ones too.' }) },
    resolve: (_root, { includeExpired }, ctx) =>
      alertsDeps(ctx).alerts.silences.list(ctx.viewer.principal, includeExpired ?? false),
  }),
);

builder.mutationField('createAlertSilence', (t) =>
  t.field({
    type: SilenceRef,
    description:
      'Silences the caller’s matching firings from startsAt to endsAt: they are recorded as `silenced` and deliver nothing. TOO_MANY_SILENCES past the bound; a bad field is INVALID_ARGUMENTS.',
    args: { input: t.arg({ type: SilenceInput, required: true, description: 'The silence.' }) },
    resolve: (_root, { input }, ctx) =>
      alertsDeps(ctx).alerts.silences.create(ctx.viewer.principal, wireOf(input)),
  }),
);

builder.mutationField('expireAlertSilence', (t) =>
  t.field({
    type: SilenceRef,
    description: 'Ends one of the caller’s silences now; returns it.',
    args: { id: t.arg.string({ required: true, description: 'The silence id.' }) },
    resolve: (_root, { id }, ctx) => alertsDeps(ctx).alerts.silences.expire(ctx.viewer.principal, id),
  }),
);

builder.mutationField('deleteAlertSilence', (t) =>
  t.field({
    type: 'String',
    description:
      'Deletes one of the caller’s silences (firings it silenced keep their record); returns its id.',
    args: { id: t.arg.string({ required: true, description: 'The silence id.' }) },
    resolve: async (_root, { id }, ctx) => {
      await alertsDeps(ctx).alerts.silences.delete(ctx.viewer.principal, id);
      return id;
    },
  }),
);
