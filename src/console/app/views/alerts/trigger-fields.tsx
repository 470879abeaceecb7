/** The trigger part of the alert form: its type, then the fields of that type only. */
import { aria, CheckGroup, Err, fid, TextField } from './fields.tsx';
import type { Errors, FormState } from './form-model.ts';
import { EVENT_TYPES, SEVERITIES, TRIGGER_TYPES, type TriggerType, WATCHDOGS, words } from './model.ts';

type Setter = <K extends keyof FormState>(key: K, value: FormState[K]) => void;
interface Props {
  s: FormState;
  errors: Errors;
  set: Setter;
}

export function TriggerFields({ s, errors, set }: Props) {
  return (
    <fieldset class="af-group">
      <legend>Trigger</legend>
      <div class="af-field">
        <label for={fid('trigger.type')}>Trigger</label>
        <select
          id={fid('trigger.type')}
          value={s.triggerType}
          onChange={(e) => set('triggerType', (e.target as HTMLSelectElement).value as TriggerType)}
          {...aria(errors, 'trigger.type')}
        >
          {TRIGGER_TYPES.map((t) => (
            <option key={t.id} value={t.id}>
              {t.label}
            </option>
          ))}
        </select>
        <Err errors={errors} of="trigger.type" />
      </div>
      {s.triggerType === 'WATCHDOG_EVENT' ? <EventFilter s={s} errors={errors} set={set} /> : null}
      {s.triggerType === 'PRICE_THRESHOLD' ? <PriceFields s={s} errors={errors} set={set} /> : null}
      {s.triggerType === 'VOLUME_THRESHOLD' ? <VolumeFields s={s} errors={errors} set={set} /> : null}
      {s.triggerType === 'CUSTOM_CONDITION' ? <ConditionFields s={s} errors={errors} set={set} /> : null}
    </fieldset>
  );
}

function EventFilter({ s, errors, set }: Props) {
  return (
    <div class="af-filter">
      <p class="hint">Lists are combined with AND, the values inside one list with OR.</p>
      <CheckGroup
        of="trigger.event_filter.event_types"
        legend="Event types"
        options={EVENT_TYPES}
        label={words}
        value={s.eventTypes}
        errors={errors}
        onValue={(v) => set('eventTypes', v)}
      />
      <CheckGroup
        of="trigger.event_filter.severities"
        legend="Severities"
        options={SEVERITIES}
        label={words}
        value={s.severities}
        errors={errors}
        onValue={(v) => set('severities', v)}
      />
      <TextField
        of="trigger.event_filter.assets"
        label="Assets"
        value={s.assets}
        errors={errors}
        onValue={(v) => set('assets', v)}
        hint="Symbols, comma-separated (BTC/USDT, AAPL); empty: any."
      />
      <CheckGroup
        of="trigger.event_filter.watchdogs"
        legend="Watchdogs"
        options={WATCHDOGS}
        label={words}
        value={s.watchdogs}
        errors={errors}
        onValue={(v) => set('watchdogs', v)}
      />
    </div>
  );
}

function SymbolField({ s, errors, set }: Props) {
  return (
    <TextField
      of="trigger.symbol"
      label="Symbol"
      value={s.symbol}
      errors={errors}
      onValue={(v) => set('symbol', v)}
      hint="BTC/USDT, AAPL…"
    />
  );
}

function PriceFields({ s, errors, set }: Props) {
  return (
    <div class="af-cols">
      <SymbolField s={s} errors={errors} set={set} />
      <TextField
        of="trigger.price_threshold"
        label="Price threshold"
        inputMode="decimal"
        value={s.priceThreshold}
        errors={errors}
        onValue={(v) => set('priceThreshold', v)}
      />
      <div class="af-field">
        <label for={fid('trigger.direction')}>Direction</label>
        <select
          id={fid('trigger.direction')}
          value={s.direction}
          onChange={(e) => set('direction', (e.target as HTMLSelectElement).value as 'ABOVE' | 'BELOW')}
          {...aria(errors, 'trigger.direction')}
        >
          <option value="ABOVE">Crosses above</option>
          <option value="BELOW">Crosses below</option>
        </select>
        <Err errors={errors} of="trigger.direction" />
      </div>
      <TextField
        of="trigger.hysteresis_percent"
        label="Hysteresis (%)"
        inputMode="decimal"
        value={s.hysteresisPercent}
        errors={errors}
        onValue={(v) => set('hysteresisPercent', v)}
        hint="How far back (0 to 50 % of the threshold) before it can fire again."
      />
    </div>
  );
}

function VolumeFields({ s, errors, set }: Props) {
  return (
    <div class="af-cols">
      <SymbolField s={s} errors={errors} set={set} />
      <TextField
        of="trigger.volume_threshold"
        label="Volume threshold"
        inputMode="decimal"
        value={s.volumeThreshold}
        errors={errors}
        onValue={(v) => set('volumeThreshold', v)}
        hint="Units traded in the session so far."
      />
    </div>
  );
}

function ConditionFields({ s, errors, set }: Props) {
  return (
    <>
      <TextField
        of="trigger.condition"
        label="FK-DSL condition"
        multiline
        value={s.condition}
        errors={errors}
        onValue={(v) => set('condition', v)}
        hint="One SCAN statement; it fires when the scan starts matching, e.g. SCAN CRYPTO WHERE CHANGE > 5% or SCAN [AAPL, MSFT] WHERE RSI < 30"
      />
      <TextField
        of="trigger.check_interval_seconds"
        label="Check interval (seconds)"
        inputMode="numeric"
        value={s.checkIntervalSeconds}
        errors={errors}
        onValue={(v) => set('checkIntervalSeconds', v)}
        hint="60 to 86400, in whole minutes."
      />
    </>
  );
}
