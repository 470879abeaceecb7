/**
 * Acknowledge or resolve an episode through one of its firings, with an optional note for whoever
 * reads the record. Says what the action does before it is taken: acknowledging quiets the
 * condition until it resolves (PagerDuty alone is told), resolving ends the episode now.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { ErrorNote, FieldError, formatTime } from '../../ui.tsx';
import { ACKNOWLEDGE_FIRING, type EpisodeAction, type Firing, RESOLVE_FIRING } from './firing-model.ts';

const NOTE_ID = 'al-episode-note';
const TEXT: Record<EpisodeAction, { verb: string; what: string }> = {
  acknowledge: {
    verb: 'Acknowledge',
    what: 'New firings of this condition are recorded but deliver nothing until the episode resolves; PagerDuty targets are told it is acknowledged.',
  },
  resolve: {
    verb: 'Resolve',
    what: 'The episode ends now; with "Send resolved" every target is told. The next firing opens a new episode.',
  },
};

interface Props {
  alertId: string;
  action: EpisodeAction;
  firing: Firing;
  onDone: (firing: Firing) => void;
  onCancel: () => void;
}

export function EpisodeActionForm({ alertId, action, firing, onDone, onCancel }: Props) {
  const [note, setNote] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const box = useRef<HTMLTextAreaElement>(null);
  useEffect(() => box.current?.focus(), [firing.id, action]);
  const { verb, what } = TEXT[action];
  const episode = firing.episode;

  const submit = async (e: Event) => {
    e.preventDefault();
    setBusy(true);
    setError(undefined);
    try {
      const variables = { alertId, firingId: firing.id, note: note.trim() || undefined };
      const data = await mutate<{ acknowledgeAlertFiring?: Firing; resolveAlertFiring?: Firing }>(
        action === 'acknowledge' ? ACKNOWLEDGE_FIRING : RESOLVE_FIRING,
        variables,
      );
      const answered = data.acknowledgeAlertFiring ?? data.resolveAlertFiring;
      if (answered) onDone(answered);
    } catch (caught) {
      setError(caught as ApiError);
      setBusy(false);
    }
  };
  const noteError = error?.fields.note;
  return (
    <section class="al-episode-action" aria-label={`${verb} episode`}>
      <h3>
        {verb} episode <span class="mono">{episode?.incidentKey}</span>
      </h3>
      <p class="muted">
        Open since {formatTime(episode?.startedAt)}, {episode?.firings} firing
        {episode?.firings === 1 ? '' : 's'}. {what}
      </p>
      <form onSubmit={submit} noValidate>
        <label for={NOTE_ID}>Note (optional)</label>
        <textarea
          id={NOTE_ID}
          ref={box}
          rows={2}
          value={note}
          maxLength={1000}
          onInput={(e) => setNote((e.target as HTMLTextAreaElement).value)}
          aria-invalid={noteError ? 'true' : undefined}
          aria-describedby={noteError ? `${NOTE_ID}-error` : undefined}
        />
        <FieldError id={`${NOTE_ID}-error`} message={noteError} />
        {error && !noteError ? <ErrorNote error={error} /> : null}
        <div class="row af-actions">
          <button type="submit" class="primary" disabled={busy}>
            {verb} episode
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </section>
  );
}
