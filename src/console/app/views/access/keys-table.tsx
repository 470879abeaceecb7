/** The table of every API key, revoked ones included, with a confirmed "Revoke" per live key. */
import { Fragment } from 'preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { type ApiError, mutate, signOut } from '../../api.ts';
import { ago, Badge, ErrorNote, formatTime } from '../../ui.tsx';
import { viewer } from '../../viewer.ts';
import { type ApiKey, REVOKE_KEY, scopeName, shownPrefix, until } from './model.ts';

function status(key: ApiKey, now: number): { tone: string; text: string } {
  if (key.revokedAt) return { tone: 'muted', text: 'revoked' };
  if (key.expiresAt && new Date(key.expiresAt).getTime() <= now) return { tone: 'warn', text: 'expired' };
  return { tone: 'ok', text: 'active' };
}

function When({ iso, future }: { iso: string | null; future?: boolean }) {
  if (!iso) return <span class="muted">{future ? 'never' : '—'}</span>;
  return (
    <time dateTime={iso} title={formatTime(iso)}>
      {future ? until(iso) : ago(iso)}
    </time>
  );
}

/** Who created a key: another key's name when it was one, else `admin`, `local` or `anonymous`. */
function creator(by: string, keys: readonly ApiKey[]): string {
  return keys.find((k) => k.id === by)?.name ?? by;
}

/** Button names must tell keys apart: two live keys of the same name get their prefix too. */
function revokeLabel(key: ApiKey, keys: readonly ApiKey[]): string {
  const twins = keys.filter((k) => !k.revokedAt && k.name === key.name).length;
  return twins > 1 ? `Revoke ${key.name} (${shownPrefix(key.prefix)})` : `Revoke ${key.name}`;
}

export function KeysTable({
  keys,
  currentId,
  onChanged,
}: {
  keys: readonly ApiKey[];
  currentId: string;
  onChanged: (key: ApiKey) => void;
}) {
  const [asking, setAsking] = useState<string | undefined>(undefined);
  const [said, setSaid] = useState('');
  const now = Date.now();
  return (
    <>
      <div class="table-wrap">
        <table class="access-keys">
          <caption class="access-caption">
            Every API key, newest first. Revoking takes effect at once: the key's next call is refused and its
            live connections close.
          </caption>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Status</th>
              <th scope="col">Scopes</th>
              <th scope="col">Key</th>
              <th scope="col">Created</th>
              <th scope="col">Expires</th>
              <th scope="col">Last used</th>
              <th scope="col">
                <span class="access-sr">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((key) => {
              return (
                <Fragment key={key.id}>
                  <KeyRow
                    apiKey={key}
                    keys={keys}
                    now={now}
                    current={key.id === currentId}
                    asking={asking === key.id}
                    onAsk={() => setAsking(asking === key.id ? undefined : key.id)}
                  />
                  {asking === key.id ? (
                    <tr class="access-confirm-row">
                      <td colSpan={8}>
                        <ConfirmRevoke
                          apiKey={key}
                          current={key.id === currentId}
                          onCancel={() => {
                            setAsking(undefined);
                            // Back to the button that opened the question, not to the top of the page.
                            document.querySelector<HTMLElement>(`[data-revoke="${key.id}"]`)?.focus();
                          }}
                          onRevoked={(revoked) => {
                            setAsking(undefined);
                            setSaid(`Key ${revoked.name} was revoked.`);
                            onChanged(revoked);
                          }}
                        />
                      </td>
                    </tr>
                  ) : null}
                </Fragment>
              );
            })}
          </tbody>
        </table>
      </div>
      <p class="muted" role="status" aria-live="polite">
        {said}
      </p>
    </>
  );
}

function KeyRow({
  apiKey,
  keys,
  now,
  current,
  asking,
  onAsk,
}: {
  apiKey: ApiKey;
  keys: readonly ApiKey[];
  now: number;
  current: boolean;
  asking: boolean;
  onAsk: () => void;
}) {
  const state = status(apiKey, now);
  return (
    <tr>
      <th scope="row" class="access-name">
        {apiKey.name}
        {current ? (
          <span class="access-current">
            <Badge tone="info">in use here</Badge>
          </span>
        ) : null}
      </th>
      <td data-label="Status">
        <Badge tone={state.tone}>{state.text}</Badge>
        {apiKey.revokedAt ? (
          <span class="access-small muted">
            {' '}
            <When iso={apiKey.revokedAt} />
          </span>
        ) : null}
      </td>
      <td data-label="Scopes">{apiKey.scopes.map(scopeName).join(', ')}</td>
      <td data-label="Key">
        <code>{shownPrefix(apiKey.prefix)}</code>
        <span class="access-small muted access-id" title={apiKey.id}>
          id {apiKey.id.slice(0, 8)}…
        </span>
      </td>
      <td data-label="Created">
        <When iso={apiKey.createdAt} />
        <span class="access-small muted access-id">by {creator(apiKey.createdBy, keys)}</span>
      </td>
      <td data-label="Expires">
        <When iso={apiKey.expiresAt} future={state.text !== 'expired'} />
      </td>
      <td data-label="Last used">
        {apiKey.lastUsedAt ? <When iso={apiKey.lastUsedAt} /> : <span class="muted">never</span>}
      </td>
      <td data-label="Actions">
        {apiKey.revokedAt ? null : (
          <button type="button" class="danger" data-revoke={apiKey.id} aria-expanded={asking} onClick={onAsk}>
            {revokeLabel(apiKey, keys)}
          </button>
        )}
      </td>
    </tr>
  );
}

function ConfirmRevoke({
  apiKey,
  current,
  onCancel,
  onRevoked,
}: {
  apiKey: ApiKey;
  current: boolean;
  onCancel: () => void;
  onRevoked: (key: ApiKey) => void;
}) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const confirm = useRef<HTMLButtonElement>(null);
  useEffect(() => confirm.current?.focus(), []);

  const revoke = async () => {
    setBusy(true);
    setError(undefined);
    try {
      const data = await mutate<{ revokeApiKey: ApiKey }>(REVOKE_KEY, { id: apiKey.id });
      if (current) {
        // The console's own key no longer works: forget it, and the shell asks for another.
        signOut();
        viewer.set(undefined);
        return;
      }
      onRevoked(data.revokeApiKey);
    } catch (caught) {
      setError(caught as ApiError);
      setBusy(false);
    }
  };

  return (
    <fieldset class="access-confirm">
      <legend>Revoke {apiKey.name}?</legend>
      <p>
        Key {shownPrefix(apiKey.prefix)}: every program using it is refused from now on; this cannot be
        undone.
        {current ? (
          <strong> This is the key this console is signed in with: you will be signed out.</strong>
        ) : null}
      </p>
      {error ? <ErrorNote error={error} /> : null}
      <div class="row">
        <button type="button" class="danger" ref={confirm} disabled={busy} onClick={revoke}>
          {busy ? 'Revoking…' : 'Yes, revoke'}
        </button>
        <button type="button" onClick={onCancel} disabled={busy}>
          Cancel
        </button>
      </div>
    </fieldset>
  );
}
