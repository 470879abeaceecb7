/**
 * The alert form's mute windows: recurring times (days, start, end, an IANA time zone) in which
 * the alert's firings are recorded as silenced, e.g. outside market hours. Times are wall-clock
 * in the window's zone, so a new window starts in the browser's own zone; an end not after the
 * start runs into the next day, as the API reads it.
 */
import { aria, CheckGroup, Err, fid, Hint, TextField } from './fields.tsx';
import type { Errors, FormState, MuteWindow } from './form-model.ts';
import { WEEKDAYS } from './model.ts';

/** The API's bound (MAX_MUTE_WINDOWS). */
const MAX_WINDOWS = 10;
const ZONES_LIST = 'af-time-zones';

type Setter = <K extends keyof FormState>(key: K, value: FormState[K]) => void;

const dayLabel = (day: string) => day.charAt(0) + day.slice(1).toLowerCase();

function browserZone(): string {
  return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
}

/** The zones the browser knows, offered as suggestions (any IANA name may be typed). */
function knownZones(): readonly string[] {
  const intl = Intl as { supportedValuesOf?: (key: string) => string[] };
  return intl.supportedValuesOf?.('timeZone') ?? [];
}

export function MuteWindowFields({ s, errors, set }: { s: FormState; errors: Errors; set: Setter }) {
  const windows = s.muteWindows;
  const change = (i: number, part: Partial<MuteWindow>) =>
    set(
      'muteWindows',
      windows.map((w, j) => (j === i ? { ...w, ...part } : w)),
    );
  const add = () =>
    set('muteWindows', [...windows, { days: [], start: '18:00', end: '08:00', timeZone: browserZone() }]);
  return (
    <fieldset class="af-group" id={fid('mute_windows')}>
      <legend>Mute windows</legend>
      <p class="hint">
        Firings inside a window are recorded as silenced and deliver nothing. An end not after the start runs
        into the next day.
      </p>
      {windows.length === 0 ? <p class="hint">No mute windows.</p> : null}
      {windows.map((w, i) => (
        <WindowFields
          key={i}
          index={i}
          window={w}
          errors={errors}
          onChange={(part) => change(i, part)}
          onRemove={() =>
            set(
              'muteWindows',
              windows.filter((_, j) => j !== i),
            )
          }
        />
      ))}
      <Err errors={errors} of="mute_windows" />
      <datalist id={ZONES_LIST}>
        {windows.length > 0 ? knownZones().map((zone) => <option key={zone} value={zone} />) : null}
      </datalist>
      <button type="button" disabled={windows.length >= MAX_WINDOWS} onClick={add}>
        Add mute window
      </button>
    </fieldset>
  );
}

function WindowFields(p: {
  index: number;
  window: MuteWindow;
  errors: Errors;
  onChange: (part: Partial<MuteWindow>) => void;
  onRemove: () => void;
}) {
  const key = `mute_windows.${p.index}`;
  const n = p.index + 1;
  const w = p.window;
  return (
    <fieldset class="af-method af-window" id={fid(key)}>
      <legend>Mute window {n}</legend>
      <CheckGroup
        of={`${key}.days`}
        legend="Days"
        none="every day"
        options={WEEKDAYS}
        label={dayLabel}
        value={w.days}
        errors={p.errors}
        onValue={(days) => p.onChange({ days })}
      />
      <div class="af-cols">
        <TextField
          of={`${key}.start`}
          label="Start"
          type="time"
          value={w.start}
          errors={p.errors}
          onValue={(start) => p.onChange({ start })}
        />
        <TextField
          of={`${key}.end`}
          label="End"
          type="time"
          value={w.end}
          errors={p.errors}
          onValue={(end) => p.onChange({ end })}
        />
        <ZoneField
          of={`${key}.time_zone`}
          value={w.timeZone}
          errors={p.errors}
          onValue={(timeZone) => p.onChange({ timeZone })}
        />
      </div>
      <button type="button" onClick={p.onRemove}>
        Remove mute window {n}
      </button>
    </fieldset>
  );
}

function ZoneField(p: { of: string; value: string; errors: Errors; onValue: (value: string) => void }) {
  return (
    <div class="af-field">
      <label for={fid(p.of)}>Time zone</label>
      <input
        id={fid(p.of)}
        value={p.value}
        list={ZONES_LIST}
        autoComplete="off"
        spellcheck={false}
        onInput={(e) => p.onValue((e.target as HTMLInputElement).value)}
        {...aria(p.errors, p.of, true)}
      />
      <Hint of={p.of}>An IANA name: America/New_York, Europe/London, UTC.</Hint>
      <Err errors={p.errors} of={p.of} />
    </div>
  );
}
