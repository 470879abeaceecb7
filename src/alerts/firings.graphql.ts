import { builder } from '../builder.ts';
import { alertsDeps } from './alerts.deps.ts';
import { DEFAULT_RECORD_LIMIT, MAX_NOTE_LENGTH, MAX_RECORD_LIMIT } from './firing-record.service.ts';
import { EpisodeRef, EpisodeStateEnum, FiringRef, FiringStatusEnum } from './firing-types.graphql.ts';

/**
 * The record of an alert's firings and episodes, and acknowledging or resolving an episode through
 * one of its firings (firing-record.service.ts), as the caller's principal: another owner's alert
 * or firing is NOT_FOUND. Reading needs `read`, acknowledging and resolving `write`.
 */

const FIRST = `At most this many, 1 to ${MAX_RECORD_LIMIT}.`;
const ALERT_ID = 'The alert id (one of the caller’s alerts).';
const FIRING_ID = 'The firing (an id from alertFirings) whose episode it is.';
const NOTE = `Why, for whoever reads the record (at most ${MAX_NOTE_LENGTH} characters; INVALID_ARGUMENTS naming \`note\` past that).`;

builder.queryField('alertFirings', (t) =>
  t.field({
    type: [FiringRef],
    description:
      'The firings of one of the caller’s alerts, newest first, each with its episode. An unknown alert (or another owner’s) is NOT_FOUND.',
    args: {
      alertId: t.arg.id({ required: true, description: ALERT_ID }),
      first: t.arg.int({ defaultValue: DEFAULT_RECORD_LIMIT, description: FIRST }),
      status: t.arg({
        type: [FiringStatusEnum],
        required: false,
        description: 'Only firings with one of these statuses (absent or empty: any).',
      }),
    },
    resolve: (_root, { alertId, first, status }, ctx) =>
      alertsDeps(ctx).alerts.firingRecord.firings(ctx.viewer.principal, String(alertId), {
        limit: first,
        only: status,
      }),
  }),
);

builder.queryField('alertEpisodes', (t) =>
  t.field({
    type: [EpisodeRef],
    description:
      'The episodes of one of the caller’s alerts, the latest started first. An unknown alert (or another owner’s) is NOT_FOUND.',
    args: {
      alertId: t.arg.id({ required: true, description: ALERT_ID }),
      state: t.arg({
        type: [EpisodeStateEnum],
        required: false,
        description: 'Only episodes in one of these states (absent or empty: any).',
      }),
      first: t.arg.int({ defaultValue: DEFAULT_RECORD_LIMIT, description: FIRST }),
    },
    resolve: (_root, { alertId, first, state }, ctx) =>
      alertsDeps(ctx).alerts.firingRecord.episodes(ctx.viewer.principal, String(alertId), {
        limit: first,
        only: state,
      }),
  }),
);

builder.mutationField('acknowledgeAlertFiring', (t) =>
  t.field({
    type: FiringRef,
    description:
      'Acknowledges the episode of one of the caller’s alert’s firings, as the caller: until the episode resolves, firings of its condition are recorded as ACKNOWLEDGED and deliver nothing; PagerDuty targets get an acknowledgement. Acknowledging again keeps the first acknowledgement; a group notice’s firing acknowledges its group and every open episode in it. Answers the firing. FIRING_NOT_FOUND for an unknown firing, FIRING_HAS_NO_EPISODE for a test-send or silenced one, EPISODE_RESOLVED when its episode has resolved.',
    args: {
      alertId: t.arg.id({ required: true, description: ALERT_ID }),
      firingId: t.arg.id({ required: true, description: FIRING_ID }),
      note: t.arg.string({ required: false, description: NOTE }),
    },
    resolve: (_root, { alertId, firingId, note }, ctx) =>
      alertsDeps(ctx).alerts.firingRecord.acknowledge(
        ctx.viewer.principal,
        String(alertId),
        String(firingId),
        note,
      ),
  }),
);

builder.mutationField('resolveAlertFiring', (t) =>
  t.field({
    type: FiringRef,
    description:
      'Resolves the episode of one of the caller’s alert’s firings by hand (reason MANUAL), as the caller; with the alert’s sendResolved, every target gets a resolved notice. An episode already resolved is answered as it is; a group notice’s firing resolves every open episode of its group. Answers the firing. FIRING_NOT_FOUND for an unknown firing, FIRING_HAS_NO_EPISODE for a test-send or silenced one.',
    args: {
      alertId: t.arg.id({ required: true, description: ALERT_ID }),
      firingId: t.arg.id({ required: true, description: FIRING_ID }),
      note: t.arg.string({ required: false, description: NOTE }),
    },
    resolve: (_root, { alertId, firingId, note }, ctx) =>
      alertsDeps(ctx).alerts.firingRecord.resolve(
        ctx.viewer.principal,
        String(alertId),
        String(firingId),
        note,
      ),
  }),
);
