/** The "Signed in as" card: who the console calls Vigil as, how that was decided, and what it may do. */
import { Badge, Card, formatTime } from '../../ui.tsx';
import type { Viewer } from '../../viewer.ts';
import { SCOPE_MEANING, SCOPES, scopeName, until } from './model.ts';

const KIND_LABEL: Readonly<Record<Viewer['kind'], string>> = {
  ANONYMOUS: 'Anonymous (no key)',
  KEY: 'API key',
  BOOTSTRAP: 'Bootstrap admin key',
};

function KindExplanation({ who }: { who: Viewer }) {
  switch (who.kind) {
    case 'ANONYMOUS':
      return who.scopes.length > 0 ? (
        <p class="hint">
          This Vigil runs with <code>AUTH_REQUIRED</code> off: everyone who reaches it, without a key, is the
          same anonymous caller and holds the scopes below. Set <code>AUTH_REQUIRED=true</code> (and{' '}
          <code>ADMIN_API_KEY</code>) before others can reach it.
        </p>
      ) : (
        <p class="hint">No key was given, and this Vigil requires one: nothing is allowed.</p>
      );
    case 'BOOTSTRAP':
      return (
        <p class="hint">
          The key set in the server's <code>ADMIN_API_KEY</code> setting. It is not listed with the other keys
          and cannot be revoked here: change the setting and restart Vigil to replace it.
        </p>
      );
    default:
      return (
        <p class="hint">
          A key created by an administrator (key id <code>{who.id}</code>). The console keeps it in this tab
          only (session storage) and sends it with every request; sign out from the header to forget it.
        </p>
      );
  }
}

export function SignedInAs({ who }: { who: Viewer }) {
  const held = new Set(who.scopes);
  return (
    <Card title="Signed in as">
      <dl class="access-facts">
        <dt>Name</dt>
        <dd>
          <strong>{who.name}</strong>
        </dd>
        <dt>Kind</dt>
        <dd>
          {KIND_LABEL[who.kind] ?? who.kind}
          <KindExplanation who={who} />
        </dd>
        <dt>Scopes</dt>
        <dd>
          {who.scopes.length === 0 ? (
            <span>None</span>
          ) : (
            <ul class="access-scopes">
              {SCOPES.filter((s) => held.has(s)).map((scope) => (
                <li key={scope}>
                  <Badge tone="ok">{scopeName(scope)}</Badge> <span>{SCOPE_MEANING[scope]}</span>
                </li>
              ))}
            </ul>
          )}
        </dd>
        <dt>Expires</dt>
        <dd>
          {who.expiresAt ? (
            <time dateTime={who.expiresAt}>
              {formatTime(who.expiresAt)} ({until(who.expiresAt)})
            </time>
          ) : (
            'Never'
          )}
        </dd>
      </dl>
    </Card>
  );
}
