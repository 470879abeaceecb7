/** The "Create key" form: name, scopes (a higher one includes the lower ones), optional expiry. */
import { useRef, useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { Card, ErrorNote, FieldError } from '../../ui.tsx';
import type { Scope } from '../../viewer.ts';
import {
  CREATE_KEY,
  type CreatedApiKey,
  SCOPE_MEANING,
  SCOPES,
  scopeName,
  topScope,
  withImplied,
} from './model.ts';

type Field = 'name' | 'scopes' | 'expiresAt';
type Errors = Partial<Record<Field, string>>;

/** The API names the field in `extensions.field` and repeats it in the message ("name: must not be empty"). */
function fieldErrors(error: ApiError): Errors {
  const out: Errors = {};
  for (const field of ['name', 'scopes', 'expiresAt'] as const) {
    const message = error.fields[field];
    if (message) out[field] = message.replace(new RegExp(`^${field}: `), '');
  }
  return out;
}

/** A datetime-local value (local time, no zone) as an ISO instant; undefined when empty, null when invalid. */
function expiryIso(value: string): string | undefined | null {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? null : date.toISOString();
}

export function CreateKey({ onCreated }: { onCreated: (created: CreatedApiKey) => void }) {
  const [name, setName] = useState('');
  const [chosen, setChosen] = useState<ReadonlySet<Scope>>(new Set(['READ']));
  const [expires, setExpires] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [failure, setFailure] = useState<ApiError | undefined>(undefined);
  const [busy, setBusy] = useState(false);
  const form = useRef<HTMLFormElement>(null);
  const granted = withImplied(chosen);

  const toggle = (scope: Scope, on: boolean) => {
    const next = new Set(chosen);
    if (on) next.add(scope);
    else next.delete(scope);
    setChosen(next);
  };

  const showErrors = (found: Errors) => {
    setErrors(found);
    // Focus the first field the API refused, so a keyboard or screen-reader user lands on it.
    const first = (['name', 'scopes', 'expiresAt'] as const).find((f) => found[f]);
    if (first) form.current?.querySelector<HTMLElement>(`[data-field="${first}"]`)?.focus();
  };

  const submit = async (e: Event) => {
    e.preventDefault();
    const expiresAt = expiryIso(expires);
    if (expiresAt === null) return showErrors({ expiresAt: 'must be a valid date and time' });
    setBusy(true);
    setFailure(undefined);
    try {
      const data = await mutate<{ createApiKey: CreatedApiKey }>(CREATE_KEY, {
        name,
        scopes: topScope(chosen),
        expiresAt: expiresAt ?? null,
      });
      setErrors({});
      setName('');
      setExpires('');
      setChosen(new Set(['READ']));
      onCreated(data.createApiKey);
    } catch (caught) {
      const error = caught as ApiError;
      const found = fieldErrors(error);
      if (Object.keys(found).length > 0) showErrors(found);
      else setFailure(error);
    } finally {
      setBusy(false);
    }
  };

  return (
    <Card title="Create key">
      <form ref={form} onSubmit={submit} noValidate class="access-form">
        <label for="key-name">Key name</label>
        <input
          id="key-name"
          data-field="name"
          value={name}
          maxLength={100}
          autocomplete="off"
          onInput={(e) => setName((e.target as HTMLInputElement).value)}
          aria-invalid={errors.name ? 'true' : undefined}
          aria-describedby={errors.name ? 'key-name-error key-name-hint' : 'key-name-hint'}
        />
        <p class="hint" id="key-name-hint">
          What the key is for (1 to 100 characters), such as the program or person that will use it.
        </p>
        <FieldError id="key-name-error" message={errors.name} />
        <ScopeBoxes chosen={chosen} granted={granted} error={errors.scopes} onToggle={toggle} />
        <label for="key-expires">Expires (optional)</label>
        <input
          id="key-expires"
          data-field="expiresAt"
          type="datetime-local"
          value={expires}
          onInput={(e) => setExpires((e.target as HTMLInputElement).value)}
          aria-invalid={errors.expiresAt ? 'true' : undefined}
          aria-describedby={errors.expiresAt ? 'key-expires-error key-expires-hint' : 'key-expires-hint'}
        />
        <p class="hint" id="key-expires-hint">
          Your local time. Leave it empty for a key that never expires; it can be revoked at any time.
        </p>
        <FieldError id="key-expires-error" message={errors.expiresAt} />
        {failure ? <ErrorNote error={failure} /> : null}
        <div class="row access-submit">
          <button type="submit" class="primary" disabled={busy}>
            Create key
          </button>
          {busy ? (
            <span class="muted" role="status">
              Creating…
            </span>
          ) : null}
        </div>
      </form>
    </Card>
  );
}

function ScopeBoxes({
  chosen,
  granted,
  error,
  onToggle,
}: {
  chosen: ReadonlySet<Scope>;
  granted: ReadonlySet<Scope>;
  error: string | undefined;
  onToggle: (scope: Scope, on: boolean) => void;
}) {
  return (
    <fieldset data-field="scopes" tabIndex={-1} aria-describedby={error ? 'key-scopes-error' : undefined}>
      <legend>Scopes</legend>
      <p class="hint">
        Each scope includes the ones above it: admin grants write and read, write grants read.
      </p>
      <ul class="access-scope-boxes">
        {SCOPES.map((scope) => {
          // A scope that a higher chosen one already grants is shown ticked and cannot be taken away.
          const implied = granted.has(scope) && !chosen.has(scope);
          return (
            <li key={scope}>
              <label class="inline">
                <input
                  type="checkbox"
                  checked={granted.has(scope)}
                  disabled={implied}
                  onChange={(e) => onToggle(scope, (e.target as HTMLInputElement).checked)}
                  aria-describedby={`scope-${scope}-meaning`}
                />
                {scopeName(scope)}
              </label>
              <span class="hint" id={`scope-${scope}-meaning`}>
                {SCOPE_MEANING[scope]}
                {implied ? ' (included by a higher scope)' : ''}
              </span>
            </li>
          );
        })}
      </ul>
      <FieldError id="key-scopes-error" message={error} />
    </fieldset>
  );
}
