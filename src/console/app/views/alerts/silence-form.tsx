/**
 * Create a silence: which firings (the fields of an event filter plus alert ids), from when, for
 * how long or until when, and why. The API's errors go under the fields they name, with a summary
 * above the buttons, as on the alert form.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { Card, ErrorNote } from '../../ui.tsx';
import { fid, TextField } from './fields.tsx';
import type { Errors } from './form-model.ts';
import { SilenceMatcherFields, SilenceSpanFields } from './silence-fields.tsx';
import {
  CREATE_SILENCE,
  emptySilence,
  type Silence,
  type SilenceFormState,
  silenceChecks,
  silenceServerErrors,
  toSilenceInput,
} from './silence-model.ts';

export type SilenceSetter = <K extends keyof SilenceFormState>(key: K, value: SilenceFormState[K]) => void;

const LABELS: Record<string, string> = {
  starts_at: 'Starts',
  ends_at: 'Ends at',
  duration: 'Duration',
  comment: 'Comment',
  matchers: 'Matchers',
  'matchers.event_types': 'Event types',
  'matchers.severities': 'Severities',
  'matchers.assets': 'Assets',
  'matchers.watchdogs': 'Watchdogs',
  'matchers.alert_ids': 'Alert ids',
};

export function SilenceForm({
  onCreated,
  onCancel,
}: {
  onCreated: (s: Silence) => void;
  onCancel: () => void;
}) {
  const [s, setS] = useState<SilenceFormState>(emptySilence);
  const [errors, setErrors] = useState<Errors>({});
  const [summary, setSummary] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const set: SilenceSetter = (key, value) => setS((old) => ({ ...old, [key]: value }));
  useEffect(() => form.current?.querySelector<HTMLElement>('input, select, textarea')?.focus(), []);

  const refuse = (found: Errors, message: string) => {
    setErrors(found);
    setSummary(message);
    // The first field named takes the focus (in the form's order).
    requestAnimationFrame(() => form.current?.querySelector<HTMLElement>('[aria-invalid="true"]')?.focus());
  };
  const submit = async (e: Event) => {
    e.preventDefault();
    const local = silenceChecks(s);
    if (Object.keys(local).length > 0) return refuse(local, 'Not created: a field needs a change.');
    setBusy(true);
    try {
      const data = await mutate<{ createAlertSilence: Silence }>(CREATE_SILENCE, {
        input: toSilenceInput(s, new Date()),
      });
      onCreated(data.createAlertSilence);
    } catch (caught) {
      const error = caught as ApiError;
      const found = silenceServerErrors(error, s);
      refuse(
        found,
        Object.keys(found).length > 0
          ? 'Not created: Vigil refused a field.'
          : `Not created: ${error.message}`,
      );
      setBusy(false);
    }
  };

  return (
    <Card title="New silence">
      <form class="alert-form silence-form" ref={form} onSubmit={submit} noValidate>
        <SilenceMatcherFields s={s} errors={errors} set={set} />
        <SilenceSpanFields s={s} errors={errors} set={set} />
        <TextField
          of="comment"
          label="Comment"
          multiline
          value={s.comment}
          errors={errors}
          onValue={(v) => set('comment', v)}
          hint="Why, 1 to 1000 characters: a maintenance window, a known incident…"
        />
        {summary ? <Summary message={summary} errors={errors} /> : null}
        <div class="row af-actions">
          <button type="submit" disabled={busy}>
            Create silence
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

function Summary({ message, errors }: { message: string; errors: Errors }) {
  const keys = Object.keys(errors);
  return (
    <div class="af-summary">
      <ErrorNote error={message} />
      {keys.length > 0 ? (
        <ul>
          {keys.map((key) => (
            <li key={key}>
              <button type="button" class="link" onClick={() => focusField(key)}>
                {LABELS[key] ?? key}
              </button>
              : {errors[key]}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}

/** The summary's links focus their field (a list of checkboxes: its first). */
function focusField(key: string): void {
  const id = fid(key);
  const el =
    document.querySelector<HTMLElement>(`#${id}:is(input, select, textarea)`) ??
    document.querySelector<HTMLElement>(`#${id} input`);
  el?.scrollIntoView({ block: 'center' });
  el?.focus({ preventScroll: true });
}
