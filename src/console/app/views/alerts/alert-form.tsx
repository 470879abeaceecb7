/**
 * Create or edit an alert. Light checks run first; then the API judges, and each field it names
 * gets its error under it (aria-invalid, focus on the first), with a summary above the buttons.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { Card, ErrorNote } from '../../ui.tsx';
import { DeliveryFields } from './delivery-fields.tsx';
import { fid, TextField } from './fields.tsx';
import { clientErrors, serverErrors } from './form-errors.ts';
import { labelOf } from './form-labels.ts';
import { type Errors, emptyForm, type FormState, fromAlert, toInput } from './form-model.ts';
import { type Alert, CREATE_ALERT, UPDATE_ALERT } from './model.ts';
import { MuteWindowFields } from './mute-windows.tsx';
import { NoiseFields } from './noise-fields.tsx';
import { TriggerFields } from './trigger-fields.tsx';

interface Props {
  /** The alert to edit; absent: a new one. */
  alert?: Alert;
  onSaved: (alert: Alert, created: boolean) => void;
  onCancel: () => void;
}

/** Focus on a field, centred (the sticky header would hide it at the top of the window). */
function reveal(el: HTMLElement | null | undefined): void {
  el?.scrollIntoView({ block: 'center' });
  el?.focus({ preventScroll: true });
}

/** The element of a field, to focus it from the summary. */
function fieldElement(form: HTMLFormElement | null, key: string): HTMLElement | null {
  const id = fid(key);
  return (
    form?.querySelector<HTMLElement>(`#${id}:is(input, select, textarea)`) ??
    form?.querySelector<HTMLElement>(
      `[id^="${id}"] [aria-invalid="true"], [id^="${id}"][aria-invalid="true"]`,
    ) ??
    null
  );
}

export function AlertForm({ alert, onSaved, onCancel }: Props) {
  const creating = !alert;
  const [s, setS] = useState<FormState>(() => (alert ? fromAlert(alert) : emptyForm()));
  const [errors, setErrors] = useState<Errors>({});
  const [summary, setSummary] = useState<string | undefined>(undefined);
  const [round, setRound] = useState(0);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const set = <K extends keyof FormState>(key: K, value: FormState[K]) =>
    setS((old) => ({ ...old, [key]: value }));

  // After each refused submit, the first invalid field (in the form's order) takes the focus.
  useEffect(() => {
    if (round > 0) reveal(form.current?.querySelector<HTMLElement>('[aria-invalid="true"]'));
  }, [round]);
  useEffect(() => {
    form.current?.querySelector<HTMLElement>('input:not([disabled]), select, textarea')?.focus();
  }, []);

  const refuse = (found: Errors, message: string) => {
    setErrors(found);
    setSummary(message);
    setRound((r) => r + 1);
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const local = clientErrors(s, creating);
    const count = Object.keys(local).length;
    if (count > 0)
      return refuse(local, `Not saved: ${count === 1 ? 'a field needs' : `${count} fields need`} a change.`);
    setBusy(true);
    try {
      const input = toInput(s);
      const saved = alert
        ? (await mutate<{ updateAlert: Alert }>(UPDATE_ALERT, { id: alert.alertId, input })).updateAlert
        : (await mutate<{ createAlert: Alert }>(CREATE_ALERT, { input })).createAlert;
      onSaved(saved, creating);
    } catch (caught) {
      const error = caught as ApiError;
      const found = serverErrors(error, s);
      const n = Object.keys(found).length;
      refuse(
        found,
        n > 0
          ? `Not saved: Vigil refused ${n === 1 ? 'a field' : `${n} fields`}.`
          : `Not saved: ${error.message}`,
      );
      setBusy(false);
    }
  };

  const title = alert ? `Edit alert ${alert.alertId}` : 'New alert';
  return (
    <Card title={title}>
      <form class="alert-form" ref={form} onSubmit={submit} noValidate>
        <Identity s={s} errors={errors} set={set} creating={creating} />
        <TriggerFields s={s} errors={errors} set={set} />
        <DeliveryFields s={s} errors={errors} set={set} />
        <MuteWindowFields s={s} errors={errors} set={set} />
        <NoiseFields s={s} errors={errors} set={set} />
        <TextField
          of="cooldown_seconds"
          label="Cooldown (seconds)"
          inputMode="numeric"
          value={s.cooldownSeconds}
          errors={errors}
          onValue={(v) => set('cooldownSeconds', v)}
          hint="0 to 604800: after firing, matching events within this time do not fire it again."
        />
        {summary ? <Summary message={summary} errors={errors} form={form.current} /> : null}
        <div class="row af-actions">
          <button type="submit" disabled={busy}>
            {creating ? 'Create alert' : 'Save alert'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
          {busy ? <span role="status">Saving…</span> : null}
        </div>
      </form>
    </Card>
  );
}

function Identity(p: {
  s: FormState;
  errors: Errors;
  creating: boolean;
  set: <K extends keyof FormState>(key: K, value: FormState[K]) => void;
}) {
  const { s, errors, set } = p;
  return (
    <>
      <div class="af-cols">
        <TextField
          of="alert_id"
          label="Alert id"
          value={s.alertId}
          errors={errors}
          disabled={!p.creating}
          onValue={(v) => set('alertId', v)}
          hint={
            p.creating
              ? '1 to 64 letters, digits, _ . : - (yours to choose; unique).'
              : 'An alert keeps its id.'
          }
        />
        <TextField of="name" label="Name" value={s.name} errors={errors} onValue={(v) => set('name', v)} />
      </div>
      <TextField
        of="description"
        label="Description"
        multiline
        value={s.description}
        errors={errors}
        onValue={(v) => set('description', v)}
      />
      <label class="inline af-enabled">
        <input
          id={fid('enabled')}
          type="checkbox"
          checked={s.enabled}
          onChange={(e) => set('enabled', (e.target as HTMLInputElement).checked)}
        />
        Enabled
      </label>
    </>
  );
}

function Summary({
  message,
  errors,
  form,
}: {
  message: string;
  errors: Errors;
  form: HTMLFormElement | null;
}) {
  const keys = Object.keys(errors);
  return (
    <div class="af-summary">
      <ErrorNote error={message} />
      {keys.length > 0 ? (
        <ul>
          {keys.map((key) => (
            <li key={key}>
              <button type="button" class="link" onClick={() => reveal(fieldElement(form, key))}>
                {labelOf(key)}
              </button>
              : {errors[key]}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
