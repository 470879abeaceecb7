/** Card "New session": createAnalysisSession from a form; errors on the field the API names. */
import { useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { go } from '../../router.ts';
import { Card, ErrorNote, FieldError } from '../../ui.tsx';
import { CREATE, type Lifetime, SESSION_TYPES, type SessionType } from './queries.ts';

function list(text: string): string[] {
  return text
    .split(/[,\s]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** The API names the field (`ttlHours`) or an item of it (`assets.0`); the tools' snake_case too. */
function fieldError(error: ApiError | undefined, ...names: string[]): string | undefined {
  const entries = Object.entries(error?.fields ?? {});
  const hit = entries.find(([key]) => names.some((n) => key === n || key.startsWith(`${n}.`)));
  if (!hit) return undefined;
  // "assets.1: must be a symbol ..." -> "Item 2: must be a symbol ...": the field is already labelled.
  const [key, message] = hit;
  const item = /\.(\d+)$/.exec(key);
  const text = message.replace(/^[\w.]+: /, '');
  return item ? `Item ${Number(item[1]) + 1}: ${text}` : text;
}

export function CreateSession({ onCancel }: { onCancel: () => void }) {
  const [type, setType] = useState<SessionType>('EQUITY');
  const [assets, setAssets] = useState('');
  const [tags, setTags] = useState('');
  const [ttl, setTtl] = useState('24');
  const [error, setError] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const [local, setLocal] = useState<{ assets?: string; ttl?: string }>({});

  async function submit(e: Event) {
    e.preventDefault();
    const symbols = list(assets);
    const hours = Number(ttl);
    const problems = {
      ...(symbols.length ? {} : { assets: 'Name at least one asset (AAPL, BTC/USDT).' }),
      ...(ttl.trim() && !(hours > 0) ? { ttl: 'A positive number of hours (0.5 is 30 minutes).' } : {}),
    };
    setLocal(problems);
    if (Object.keys(problems).length) return;
    setBusy(true);
    setError(undefined);
    try {
      const vars = {
        sessionType: type,
        assets: symbols,
        tags: list(tags),
        ...(ttl.trim() ? { ttlHours: hours } : {}),
      };
      const data = await mutate<{ createAnalysisSession: Lifetime }>(CREATE, vars);
      go('sessions', data.createAnalysisSession.session.id);
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  }

  const assetsError = local.assets ?? fieldError(error, 'assets');
  const tagsError = fieldError(error, 'tags');
  const ttlError = local.ttl ?? fieldError(error, 'ttlHours', 'ttl_hours');
  const shownOnField = assetsError || tagsError || ttlError;
  return (
    <Card title="New session">
      <form onSubmit={submit} noValidate class="ses-form">
        <label for="ses-type">Type</label>
        <select id="ses-type" value={type} onChange={(e) => setType(e.currentTarget.value as SessionType)}>
          {SESSION_TYPES.map((t) => (
            <option key={t} value={t}>
              {t.toLowerCase()}
            </option>
          ))}
        </select>
        <Field
          id="ses-assets"
          label="Assets"
          value={assets}
          onInput={setAssets}
          error={assetsError}
          hint="Symbols separated by commas or spaces: AAPL, MSFT, BTC/USDT (1 to 50)."
        />
        <Field
          id="ses-tags"
          label="Tags"
          value={tags}
          onInput={setTags}
          error={tagsError}
          hint="Optional, up to 20."
        />
        <Field
          id="ses-ttl"
          label="Time-to-live (hours)"
          value={ttl}
          onInput={setTtl}
          error={ttlError}
          hint="Default 24; 0.5 is 30 minutes."
          inputMode="decimal"
        />
        {error && !shownOnField ? <ErrorNote error={error} /> : null}
        <div class="row ses-form-actions">
          <button type="submit" disabled={busy}>
            {busy ? 'Creating…' : 'Create session'}
          </button>
          <button type="button" onClick={onCancel}>
            Cancel
          </button>
        </div>
      </form>
    </Card>
  );
}

function Field(props: {
  id: string;
  label: string;
  value: string;
  onInput: (value: string) => void;
  error: string | undefined;
  hint: string;
  inputMode?: 'decimal';
}) {
  const { id, label, value, onInput, error, hint, inputMode } = props;
  return (
    <>
      <label for={id}>{label}</label>
      <input
        id={id}
        value={value}
        inputMode={inputMode}
        onInput={(e) => onInput(e.currentTarget.value)}
        aria-invalid={error ? 'true' : undefined}
        aria-describedby={error ? `${id}-error ${id}-hint` : `${id}-hint`}
      />
      <p class="hint" id={`${id}-hint`}>
        {hint}
      </p>
      <FieldError id={`${id}-error`} message={error} />
    </>
  );
}
