/** Shown when the server wants an API key (AUTH_REQUIRED) and the console has none, or a bad one. */
import { useState } from 'preact/hooks';
import { apiError, fetchQuery, signIn, signOut } from '../api.ts';
import { FieldError } from '../ui.tsx';
import { VIEWER_QUERY, type Viewer, viewer } from '../viewer.ts';

export function SignIn() {
  const [key, setKey] = useState('');
  const [error, setError] = useState<string | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const submit = async (e: Event) => {
    e.preventDefault();
    const trimmed = key.trim();
    if (!trimmed) {
      setError('Enter an API key.');
      return;
    }
    setBusy(true);
    signIn(trimmed);
    try {
      const data = await fetchQuery<{ viewer: Viewer }>(VIEWER_QUERY);
      viewer.set(data.viewer);
    } catch (caught) {
      signOut();
      const e2 = apiError(caught);
      setError(
        e2.code === 'UNAUTHENTICATED' ? 'This key is not valid (unknown, revoked or expired).' : e2.message,
      );
      setBusy(false);
    }
  };
  return (
    <section class="sign-in card" aria-labelledby="sign-in-title">
      <h1 id="sign-in-title">Sign in</h1>
      <p>
        This Vigil requires an API key. It is kept in this tab only (session storage) and sent with every
        request. An administrator creates keys with <code>npm run apikey -- create</code> or in the Access
        view.
      </p>
      <form onSubmit={submit} noValidate>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          value={key}
          onInput={(e) => setKey((e.target as HTMLInputElement).value)}
          aria-invalid={error ? 'true' : undefined}
          aria-describedby={error ? 'api-key-error' : undefined}
        />
        <FieldError id="api-key-error" message={error} />
        <button type="submit" disabled={busy}>
          {busy ? 'Signing in…' : 'Sign in'}
        </button>
      </form>
    </section>
  );
}
