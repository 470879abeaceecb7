/** The silences as a table: state, what they hold, when, why and by whom, with "Expire" on active ones. */
import { Badge, formatTime } from '../../ui.tsx';
import { matchersSummary, type Silence, type SilenceState } from './silence-model.ts';

const TONE: Record<SilenceState, string> = { ACTIVE: 'ok', PENDING: 'warn', EXPIRED: 'disabled' };

interface Props {
  silences: Silence[];
  /** The caller's principal id: only its own silences can be expired (an admin also sees others'). */
  me: string | undefined;
  writable: boolean;
  /** The silence being expired (its button waits). */
  busy: string | undefined;
  onExpire: (s: Silence) => void;
}

export function SilenceList(p: Props) {
  return (
    // biome-ignore lint/a11y/noNoninteractiveTabindex: a table that scrolls sideways must be reachable by keyboard
    <section class="table-wrap" tabIndex={0} aria-label="Silences, by start">
      <table class="al-silences">
        <thead>
          <tr>
            <th scope="col">State</th>
            <th scope="col">Matchers</th>
            <th scope="col">Starts</th>
            <th scope="col">Ends</th>
            <th scope="col">Comment</th>
            <th scope="col">Created by</th>
            <th scope="col">Actions</th>
          </tr>
        </thead>
        <tbody>
          {p.silences.map((s) => (
            <Row key={s.id} silence={s} {...p} />
          ))}
        </tbody>
      </table>
    </section>
  );
}

function Row({ silence: s, me, writable, busy, onExpire }: Props & { silence: Silence }) {
  const own = me === undefined || s.owner === me;
  return (
    <tr>
      <td>
        <Badge tone={TONE[s.state]}>{s.state.toLowerCase()}</Badge>
      </td>
      <td class="al-trigger">{matchersSummary(s.matchers)}</td>
      <td class="al-time">{formatTime(s.startsAt)}</td>
      <td class="al-time">{formatTime(s.endsAt)}</td>
      <td class="al-comment">{s.comment}</td>
      <td>
        {s.createdBy}
        {own ? null : <div class="muted">owner {s.owner}</div>}
      </td>
      <td>
        {writable && own && s.state === 'ACTIVE' ? (
          <button type="button" disabled={busy === s.id} onClick={() => onExpire(s)}>
            Expire
          </button>
        ) : null}
      </td>
    </tr>
  );
}
