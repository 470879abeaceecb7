/** Small pieces every view uses: states in words, a table, a drawer, field errors, formatting. */
import type { ComponentChildren } from 'preact';
import { useEffect, useRef } from 'preact/hooks';
import type { ApiError } from './api.ts';

export function Loading({ what }: { what: string }) {
  return (
    <p class="state" role="status" aria-live="polite">
      Loading {what}…
    </p>
  );
}

export function Empty({ children }: { children: ComponentChildren }) {
  return <p class="state empty">{children}</p>;
}

export function ErrorNote({ error, action }: { error: ApiError | string; action?: () => void }) {
  const message = typeof error === 'string' ? error : error.message;
  return (
    <div class="error-note" role="alert">
      <span>{message}</span>
      {action ? (
        <button type="button" onClick={action}>
          Try again
        </button>
      ) : null}
    </div>
  );
}

/** A field's error under it, tied to its input by id for screen readers. */
export function FieldError({ id, message }: { id: string; message: string | undefined }) {
  if (!message) return null;
  return (
    <p class="field-error" id={id} role="alert">
      {message}
    </p>
  );
}

export function Card({
  title,
  children,
  actions,
}: {
  title: string;
  children: ComponentChildren;
  actions?: ComponentChildren;
}) {
  return (
    <section class="card" aria-label={title}>
      <header class="card-head">
        <h2>{title}</h2>
        {actions ? <div class="card-actions">{actions}</div> : null}
      </header>
      {children}
    </section>
  );
}

/** A side panel over the page; Escape or the close button closes it, focus goes into it. */
export function Drawer({
  title,
  onClose,
  children,
}: {
  title: string;
  onClose: () => void;
  children: ComponentChildren;
}) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('button, [href], input, select, textarea')?.focus();
    const onKey = (e: KeyboardEvent) => {
      if (e.key === 'Escape') onClose();
    };
    document.addEventListener('keydown', onKey);
    return () => {
      document.removeEventListener('keydown', onKey);
      before?.focus();
    };
  }, [onClose]);
  return (
    <div class="drawer" role="dialog" aria-modal="true" aria-label={title} ref={ref}>
      <header class="drawer-head">
        <h2>{title}</h2>
        <button type="button" class="icon" onClick={onClose} aria-label="Close">
          ×
        </button>
      </header>
      <div class="drawer-body">{children}</div>
    </div>
  );
}

export function Badge({ tone, children }: { tone: string; children: ComponentChildren }) {
  return <span class={`badge tone-${tone}`}>{children}</span>;
}

const numberFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 2 });
const priceFormat = new Intl.NumberFormat(undefined, { maximumSignificantDigits: 8 });

export function formatNumber(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : numberFormat.format(value);
}

export function formatPrice(value: number | null | undefined): string {
  return value === null || value === undefined || !Number.isFinite(value) ? '—' : priceFormat.format(value);
}

export function formatPercent(value: number | null | undefined): string {
  if (value === null || value === undefined || !Number.isFinite(value)) return '—';
  return `${value > 0 ? '+' : ''}${numberFormat.format(value)} %`;
}

export function formatTime(iso: string | null | undefined): string {
  if (!iso) return '—';
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '—' : date.toLocaleString();
}

/** "3 min ago", for times that move. */
export function ago(iso: string | null | undefined, now = Date.now()): string {
  if (!iso) return 'never';
  const seconds = Math.round((now - new Date(iso).getTime()) / 1000);
  if (seconds < 5) return 'just now';
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.round(seconds / 3600)} h ago`;
  return `${Math.round(seconds / 86_400)} d ago`;
}
