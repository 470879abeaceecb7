/**
 * The "New key" card: the secret, shown once. It lives only in the Access view's state (no storage,
 * no cache: the API client has no cache exchange) and is gone when the card is closed or the view left.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { Card } from '../../ui.tsx';
import { type CreatedApiKey, scopeName, shownPrefix } from './model.ts';

type CopyState = 'idle' | 'copied' | 'refused';

export function NewKey({ created, onDone }: { created: CreatedApiKey; onDone: () => void }) {
  const [copy, setCopy] = useState<CopyState>('idle');
  const code = useRef<HTMLElement>(null);
  const button = useRef<HTMLButtonElement>(null);

  // Focus lands on the copy button, so the one thing to do next is announced and one key away.
  useEffect(() => {
    setCopy('idle');
    button.current?.focus();
  }, [created.secret]);

  const selectSecret = () => {
    const node = code.current;
    const selection = window.getSelection();
    if (!node || !selection) return;
    const range = document.createRange();
    range.selectNodeContents(node);
    selection.removeAllRanges();
    selection.addRange(range);
  };

  const doCopy = async () => {
    try {
      if (!navigator.clipboard) throw new Error('no clipboard');
      await navigator.clipboard.writeText(created.secret);
      setCopy('copied');
    } catch {
      // Refused (permission, an insecure origin, an old browser): select it for a manual copy instead.
      selectSecret();
      setCopy('refused');
    }
  };

  const { apiKey } = created;
  return (
    <Card title="New key">
      <p class="access-warning" role="note">
        <strong>Copy this key now: it will not be shown again.</strong> Vigil keeps only a hash of it; if it
        is lost, revoke it and create another.
      </p>
      <p>
        Key <strong>{apiKey.name}</strong> ({shownPrefix(apiKey.prefix)}), scopes{' '}
        {apiKey.scopes.map(scopeName).join(', ')}
        {apiKey.expiresAt ? `, expires ${new Date(apiKey.expiresAt).toLocaleString()}` : ', never expires'}:
      </p>
      <code class="access-secret" ref={code}>
        {created.secret}
      </code>
      <div class="row access-secret-actions">
        <button type="button" class="primary" ref={button} onClick={doCopy}>
          Copy
        </button>
        <button type="button" onClick={onDone}>
          Done, I stored it
        </button>
        <span class="muted" role="status" aria-live="polite">
          {copy === 'copied'
            ? 'Copied to the clipboard.'
            : copy === 'refused'
              ? 'The browser refused the clipboard: the key is selected, copy it with Ctrl+C (⌘C).'
              : ''}
        </span>
      </div>
      <p class="hint">
        Present it as <code>Authorization: Bearer &lt;key&gt;</code> or <code>X-API-Key: &lt;key&gt;</code>,
        or sign in with it in the console.
      </p>
    </Card>
  );
}
