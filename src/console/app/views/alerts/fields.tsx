/** Labelled inputs of the alert form, each with its hint and its error tied to it for screen readers. */
import type { ComponentChildren } from 'preact';
import { FieldError } from '../../ui.tsx';
import type { Errors, Secret } from './form-model.ts';

/** A DOM id for a field path: `webhook_config.url` -> `af-webhook_config-url`. */
export const fid = (key: string) => `af-${key.replace(/[^A-Za-z0-9_]+/g, '-')}`;

/** aria-invalid and aria-describedby (hint, error) for the input of `key`. */
export function aria(errors: Errors, key: string, hint?: boolean) {
  const ids = [hint ? `${fid(key)}-hint` : '', errors[key] ? `${fid(key)}-error` : ''].filter(Boolean);
  return {
    'aria-invalid': errors[key] ? ('true' as const) : undefined,
    'aria-describedby': ids.length ? ids.join(' ') : undefined,
  };
}

export function Hint({ of, children }: { of: string; children: ComponentChildren }) {
  return (
    <p class="hint" id={`${fid(of)}-hint`}>
      {children}
    </p>
  );
}

export function Err({ errors, of }: { errors: Errors; of: string }) {
  return <FieldError id={`${fid(of)}-error`} message={errors[of]} />;
}

interface TextProps {
  of: string;
  label: string;
  value: string;
  errors: Errors;
  onValue: (value: string) => void;
  hint?: ComponentChildren;
  type?: string;
  multiline?: boolean;
  inputMode?: 'numeric' | 'decimal' | 'email' | 'url';
  autoComplete?: string;
  disabled?: boolean;
}

export function TextField(p: TextProps) {
  const common = {
    id: fid(p.of),
    value: p.value,
    disabled: p.disabled,
    onInput: (e: Event) => p.onValue((e.target as HTMLInputElement).value),
    ...aria(p.errors, p.of, !!p.hint),
  };
  return (
    <div class="af-field">
      <label for={fid(p.of)}>{p.label}</label>
      {p.multiline ? (
        <textarea {...common} rows={3} spellcheck={false} />
      ) : (
        <input
          {...common}
          type={p.type ?? 'text'}
          inputMode={p.inputMode}
          autoComplete={p.autoComplete ?? 'off'}
          spellcheck={false}
        />
      )}
      {p.hint ? <Hint of={p.of}>{p.hint}</Hint> : null}
      <Err errors={p.errors} of={p.of} />
    </div>
  );
}

/**
 * A write-only secret. The API never returns it, so editing shows only whether one is stored:
 * left empty it keeps the stored one; "Remove" sends null.
 */
export function SecretField(p: {
  of: string;
  label: string;
  secret: Secret;
  errors: Errors;
  onSecret: (secret: Secret) => void;
}) {
  const { secret } = p;
  const state = secret.stored ? (secret.remove ? 'set, will be removed' : 'set') : 'not set';
  return (
    <div class="af-field">
      <label for={fid(p.of)}>
        {p.label} <span class="badge tone-muted">{state}</span>
      </label>
      <input
        id={fid(p.of)}
        type="password"
        autoComplete="new-password"
        value={secret.value}
        disabled={secret.remove}
        onInput={(e) => p.onSecret({ ...secret, value: (e.target as HTMLInputElement).value })}
        {...aria(p.errors, p.of, true)}
      />
      <p class="hint" id={`${fid(p.of)}-hint`}>
        {secret.stored ? 'Write-only: leave empty to keep the stored one.' : 'Write-only: never shown again.'}
      </p>
      {secret.stored ? (
        <label class="inline af-remove">
          <input
            type="checkbox"
            checked={secret.remove}
            onChange={(e) =>
              p.onSecret({ ...secret, value: '', remove: (e.target as HTMLInputElement).checked })
            }
          />
          Remove stored {p.label.toLowerCase()}
        </label>
      ) : null}
      <Err errors={p.errors} of={p.of} />
    </div>
  );
}

/** Checkboxes for the values of one enum (a filter list; none checked means any). */
export function CheckGroup(p: {
  of: string;
  legend: string;
  options: readonly string[];
  label: (value: string) => string;
  value: string[];
  errors: Errors;
  onValue: (value: string[]) => void;
  /** What none checked means (default: any). */
  none?: string;
}) {
  const toggle = (option: string, on: boolean) =>
    p.onValue(on ? [...p.value, option] : p.value.filter((v) => v !== option));
  return (
    <fieldset class="af-checks" id={fid(p.of)}>
      <legend>{p.legend}</legend>
      <p class="hint">None checked: {p.none ?? 'any'}.</p>
      <div class="af-check-list">
        {p.options.map((option) => (
          <label class="inline" key={option}>
            <input
              type="checkbox"
              checked={p.value.includes(option)}
              onChange={(e) => toggle(option, (e.target as HTMLInputElement).checked)}
              {...aria(p.errors, p.of)}
            />
            {p.label(option)}
          </label>
        ))}
      </div>
      <Err errors={p.errors} of={p.of} />
    </fieldset>
  );
}
