/**
 * Access: who the console is signed in as and what it may do; for admins, creating, listing and
 * revoking API keys (a new key's secret shown once). Keys have no subscription, so the list is
 * fetched again every 30 s (last use moves) and after each change.
 */
import { useEffect, useState } from 'preact/hooks';
import { useQuery, useStore } from '../api.ts';
import { Card, Empty, ErrorNote, Loading } from '../ui.tsx';
import { can, type Viewer, viewer } from '../viewer.ts';
import { CreateKey } from './access/create-key.tsx';
import { KeysTable } from './access/keys-table.tsx';
import { API_KEYS_QUERY, type ApiKey, type CreatedApiKey, scopeName } from './access/model.ts';
import { NewKey } from './access/new-key.tsx';
import { SignedInAs } from './access/who.tsx';

const REFRESH_MS = 30_000;

export default function Access() {
  const who = useStore(viewer);
  return (
    <div class="access">
      <h1>Access</h1>
      {who ? (
        <>
          <SignedInAs who={who} />
          {can(who, 'ADMIN') ? <ManageKeys who={who} /> : <NoAdmin who={who} />}
        </>
      ) : (
        <Loading what="who you are" />
      )}
    </div>
  );
}

function NoAdmin({ who }: { who: Viewer }) {
  const held = who.scopes.map(scopeName).join(', ') || 'no scope';
  return (
    <Card title="Managing keys">
      <p>
        Creating, listing and revoking API keys needs the <strong>admin</strong> scope; {who.name} holds{' '}
        {held}. Ask an administrator for a key with more scopes, or for a new key when this one is lost.
      </p>
    </Card>
  );
}

function ManageKeys({ who }: { who: Viewer }) {
  const keys = useQuery<{ apiKeys: ApiKey[] }>(API_KEYS_QUERY);
  const [created, setCreated] = useState<CreatedApiKey | undefined>(undefined);
  // Keys as the revoke mutation returned them, shown at once rather than after the list's refetch.
  const [revoked, setRevoked] = useState<Readonly<Record<string, ApiKey>>>({});
  const list = keys.data?.apiKeys.map((k) => revoked[k.id] ?? k);

  useEffect(() => {
    const timer = setInterval(keys.refetch, REFRESH_MS);
    return () => clearInterval(timer);
  }, []);

  return (
    <>
      {created ? <NewKey created={created} onDone={() => setCreated(undefined)} /> : null}
      <CreateKey
        onCreated={(made) => {
          setCreated(made);
          keys.refetch();
        }}
      />
      <Card
        title="Keys"
        actions={
          <button type="button" onClick={keys.refetch} disabled={keys.loading}>
            Refresh
          </button>
        }
      >
        {keys.error ? (
          <ErrorNote error={keys.error} action={keys.refetch} />
        ) : !list ? (
          <Loading what="API keys" />
        ) : list.length === 0 ? (
          <Empty>
            No API keys yet. Create one above, or on the server with <code>npm run apikey -- create</code>.
          </Empty>
        ) : (
          <KeysTable
            keys={list}
            currentId={who.id}
            onChanged={(key) => {
              setRevoked((was) => ({ ...was, [key.id]: key }));
              keys.refetch();
            }}
          />
        )}
      </Card>
    </>
  );
}
