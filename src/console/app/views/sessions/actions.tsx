/** Extend a session's time-to-live and archive it (WRITE only); archiving asks once more. */
import { useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { ErrorNote, FieldError } from '../../ui.tsx';
import { ARCHIVE, EXTEND, type Lifetime } from './queries.ts';

export function SessionActions({ id, onDone }: { id: string; onDone: () => void }) {
  const [hours, setHours] = useState('24');
  const [busy, setBusy] = useState(false);
  const [confirm, setConfirm] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [note, setNote] = useState<string | undefined>(undefined);
  const [hoursError, setHoursError] = useState<string | undefined>(undefined);

  async function act(work: () => Promise<string | undefined>) {
    setBusy(true);
    setError(undefined);
    setNote(undefined);
    try {
      setNote(await work());
      onDone();
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
      setConfirm(false);
    }
  }

  const extend = (e: Event) => {
    e.preventDefault();
    const h = Number(hours);
    if (!(h > 0)) return setHoursError('A positive number of hours (0.5 is 30 minutes).');
    setHoursError(undefined);
    act(async () => {
      const { extendAnalysisSession: l } = await mutate<{ extendAnalysisSession: Lifetime }>(EXTEND, {
        id,
        hours: h,
      });
      return l.capped
        ? `Extended by ${l.grantedHours} h of the ${l.requestedHours} h asked: a session lives at most ${l.maxTtlHours} h.`
        : `Extended by ${l.grantedHours} h.`;
    });
  };

  const fieldMessage = hoursError ?? error?.fields.hours;
  return (
    <div class="ses-actions">
      <form class="row" onSubmit={extend} noValidate>
        <label for="ses-extend-hours">Hours to add</label>
        <input
          id="ses-extend-hours"
          class="ses-hours"
          inputMode="decimal"
          value={hours}
          onInput={(e) => setHours(e.currentTarget.value)}
          aria-invalid={fieldMessage ? 'true' : undefined}
          aria-describedby={fieldMessage ? 'ses-extend-error' : undefined}
        />
        <button type="submit" disabled={busy}>
          Extend TTL
        </button>
        {confirm ? (
          <>
            <button type="button" class="danger" disabled={busy} onClick={() => act(() => archive(id))}>
              Confirm archive
            </button>
            <button type="button" onClick={() => setConfirm(false)}>
              Keep it
            </button>
          </>
        ) : (
          <button type="button" class="danger" disabled={busy} onClick={() => setConfirm(true)}>
            Archive
          </button>
        )}
      </form>
      <FieldError id="ses-extend-error" message={fieldMessage} />
      {confirm ? (
        <p class="hint">Archived sessions can be read but no longer used; they are deleted later.</p>
      ) : null}
      {error && !fieldMessage ? <ErrorNote error={error} /> : null}
      {note ? (
        <p class="hint" role="status">
          {note}
        </p>
      ) : null}
    </div>
  );
}

async function archive(id: string): Promise<string> {
  await mutate(ARCHIVE, { id });
  return 'Archived.';
}
