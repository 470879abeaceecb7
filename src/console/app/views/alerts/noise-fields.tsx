/**
 * The alert form's noise control: announce resolutions, the resolve timeout of watchdog-event
 * conditions, and grouping (watchdog-event alerts only; the other triggers resolve when their
 * condition clears and are not grouped, so those fields are not shown for them).
 */
import { aria, CheckGroup, Err, fid, TextField } from './fields.tsx';
import type { Errors, FormState } from './form-model.ts';
import { GROUP_LABELS, type GroupLabel, words } from './model.ts';

type Setter = <K extends keyof FormState>(key: K, value: FormState[K]) => void;
interface Props {
  s: FormState;
  errors: Errors;
  set: Setter;
}

export function NoiseFields({ s, errors, set }: Props) {
  const events = s.triggerType === 'WATCHDOG_EVENT';
  return (
    <fieldset class="af-group">
      <legend>Episodes and grouping</legend>
      <label class="inline">
        <input
          id={fid('send_resolved')}
          type="checkbox"
          checked={s.sendResolved}
          onChange={(e) => set('sendResolved', (e.target as HTMLInputElement).checked)}
          {...aria(errors, 'send_resolved', true)}
        />
        Send resolved
      </label>
      <p class="hint" id={`${fid('send_resolved')}-hint`}>
        When an episode ends (its condition cleared, timed out or was resolved by hand), every target is told.
      </p>
      <Err errors={errors} of="send_resolved" />
      {events ? (
        <>
          <TextField
            of="resolve_timeout_seconds"
            label="Resolve timeout (seconds)"
            inputMode="numeric"
            value={s.resolveTimeoutSeconds}
            errors={errors}
            onValue={(v) => set('resolveTimeoutSeconds', v)}
            hint="60 to 86400: an episode resolves when its condition has no new event for this long."
          />
          <GroupingFields s={s} errors={errors} set={set} />
        </>
      ) : null}
    </fieldset>
  );
}

function GroupingFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-method" id={fid('grouping')}>
      <legend>Grouping</legend>
      <label class="inline">
        <input
          type="checkbox"
          checked={s.grouped}
          onChange={(e) => set('grouped', (e.target as HTMLInputElement).checked)}
          {...aria(errors, 'grouping')}
        />
        Group notifications
      </label>
      <Err errors={errors} of="grouping" />
      {s.grouped ? (
        <>
          <CheckGroup
            of="grouping.group_by"
            legend="Group by"
            none="one group for every firing of the alert"
            options={GROUP_LABELS}
            label={words}
            value={s.groupBy}
            errors={errors}
            onValue={(v) => set('groupBy', v as GroupLabel[])}
          />
          <div class="af-cols">
            <TextField
              of="grouping.group_wait_seconds"
              label="Group wait (seconds)"
              inputMode="numeric"
              value={s.groupWaitSeconds}
              errors={errors}
              onValue={(v) => set('groupWaitSeconds', v)}
              hint="0 to 3600: a new group's first notification waits this long."
            />
            <TextField
              of="grouping.group_interval_seconds"
              label="Group interval (seconds)"
              inputMode="numeric"
              value={s.groupIntervalSeconds}
              errors={errors}
              onValue={(v) => set('groupIntervalSeconds', v)}
              hint="1 to 86400: at most one notification about new events per interval."
            />
            <TextField
              of="grouping.repeat_interval_seconds"
              label="Repeat interval (seconds)"
              inputMode="numeric"
              value={s.repeatIntervalSeconds}
              errors={errors}
              onValue={(v) => set('repeatIntervalSeconds', v)}
              hint="60 to 604800: an open group with no news is notified again after this."
            />
          </div>
        </>
      ) : null}
    </fieldset>
  );
}
