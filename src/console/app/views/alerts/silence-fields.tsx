/** The silence form's parts: which firings it holds (its matchers) and when (start, then a duration or an end). */
import { aria, CheckGroup, Err, fid, TextField } from './fields.tsx';
import type { Errors } from './form-model.ts';
import { EVENT_TYPES, SEVERITIES, WATCHDOGS, words } from './model.ts';
import type { SilenceSetter } from './silence-form.tsx';
import type { DurationUnit, SilenceFormState } from './silence-model.ts';

interface Props {
  s: SilenceFormState;
  errors: Errors;
  set: SilenceSetter;
}

export function SilenceMatcherFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-group" id={fid('matchers')}>
      <legend>Which firings</legend>
      <p class="hint">
        Of your alerts. Lists are combined with AND, the values inside one list with OR; all empty: every
        firing.
      </p>
      <CheckGroup
        of="matchers.event_types"
        legend="Event types"
        options={EVENT_TYPES}
        label={words}
        value={s.eventTypes}
        errors={errors}
        onValue={(v) => set('eventTypes', v)}
      />
      <CheckGroup
        of="matchers.severities"
        legend="Severities"
        options={SEVERITIES}
        label={words}
        value={s.severities}
        errors={errors}
        onValue={(v) => set('severities', v)}
      />
      <CheckGroup
        of="matchers.watchdogs"
        legend="Watchdogs"
        options={WATCHDOGS}
        label={words}
        value={s.watchdogs}
        errors={errors}
        onValue={(v) => set('watchdogs', v)}
      />
      <div class="af-cols">
        <TextField
          of="matchers.assets"
          label="Assets"
          value={s.assets}
          errors={errors}
          onValue={(v) => set('assets', v)}
          hint="Symbols, comma-separated (BTC/USDT, AAPL); empty: any."
        />
        <TextField
          of="matchers.alert_ids"
          label="Alert ids"
          value={s.alertIds}
          errors={errors}
          onValue={(v) => set('alertIds', v)}
          hint="Your alerts' ids, comma-separated; empty: any."
        />
      </div>
      <Err errors={errors} of="matchers" />
    </fieldset>
  );
}

const UNITS: readonly { id: DurationUnit; label: string }[] = [
  { id: 'MINUTES', label: 'minutes' },
  { id: 'HOURS', label: 'hours' },
  { id: 'DAYS', label: 'days' },
];

export function SilenceSpanFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-group">
      <legend>When</legend>
      <div class="af-cols">
        <TextField
          of="starts_at"
          label="Starts"
          type="datetime-local"
          value={s.startsAt}
          errors={errors}
          onValue={(v) => set('startsAt', v)}
          hint="Your local time; empty: now."
        />
      </div>
      <fieldset class="af-checks">
        <legend>Ends</legend>
        <label class="inline">
          <input
            type="radio"
            name="silence-end-by"
            checked={s.endBy === 'DURATION'}
            onChange={() => set('endBy', 'DURATION')}
          />
          After a duration
        </label>
        <label class="inline">
          <input
            type="radio"
            name="silence-end-by"
            checked={s.endBy === 'TIME'}
            onChange={() => set('endBy', 'TIME')}
          />
          At a time
        </label>
      </fieldset>
      {s.endBy === 'DURATION' ? (
        <DurationFields s={s} errors={errors} set={set} />
      ) : (
        <div class="af-cols">
          <TextField
            of="ends_at"
            label="Ends at"
            type="datetime-local"
            value={s.endsAt}
            errors={errors}
            onValue={(v) => set('endsAt', v)}
            hint="Your local time; at most 366 days after the start."
          />
        </div>
      )}
    </fieldset>
  );
}

function DurationFields({ s, errors, set }: Props) {
  return (
    <div class="af-cols">
      <TextField
        of="duration"
        label="Duration"
        inputMode="decimal"
        value={s.duration}
        errors={errors}
        onValue={(v) => set('duration', v)}
        hint="From the start; at most 366 days."
      />
      <div class="af-field">
        <label for={fid('duration-unit')}>Unit</label>
        <select
          id={fid('duration-unit')}
          value={s.unit}
          onChange={(e) => set('unit', (e.target as HTMLSelectElement).value as DurationUnit)}
          {...aria(errors, 'duration-unit')}
        >
          {UNITS.map((u) => (
            <option key={u.id} value={u.id}>
              {u.label}
            </option>
          ))}
        </select>
      </div>
    </div>
  );
}
