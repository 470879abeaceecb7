/**
 * Pure rules shared by the adapters: which answers are worth another attempt, how long a receiver
 * asked us to wait, and keeping secrets out of every error text that is stored or shown.
 */
import type { DeliveryMethod } from '../alert.model.ts';
import type { DestinationSignal } from './destination-health.ts';
import type { DeliveryOutcome } from './types.ts';

const MAX_ERROR_CHARS = 500;

/**
 * Retry-After as milliseconds from `now`: delta-seconds or an HTTP date (RFC 9110 10.2.3).
 * Undefined when absent or unreadable; a date in the past is 0 (retry now).
 */
export function parseRetryAfter(value: string | string[] | undefined, now: Date): number | undefined {
  const text = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!text) return undefined;
  if (/^\d+$/.test(text)) return Number(text) * 1_000;
  if (!/[a-z]/i.test(text)) return undefined;
  const at = Date.parse(text);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now.getTime());
}

/**
 * An HTTP answer of a receiver: 2xx delivered; 408, 429 and 5xx may pass later; 3xx is a failure
 * (redirects are not followed: the new target would escape the SSRF check); other 4xx are final.
 */
export function httpOutcome(
  status: number,
  latencyMs: number,
  what: string,
  retryAfterMs?: number,
): DeliveryOutcome {
  if (status >= 200 && status < 300) return { status: 'delivered', responseCode: status, latencyMs };
  const error = `${what} answered HTTP ${status}`;
  if (status === 408 || status === 429 || status >= 500) {
    return {
      status: 'retry',
      responseCode: status,
      latencyMs,
      error,
      ...(retryAfterMs !== undefined ? { retryAfterMs } : {}),
    };
  }
  return { status: 'failed', responseCode: status, latencyMs, error };
}

/**
 * A receiver's answer as an outcome (see httpOutcome), with `Retry-After` honoured and, when it was
 * not delivered, the start of its body in the error: receivers name the problem there (Slack's
 * `invalid_blocks`, a JSON error).
 */
export function answerOutcome(
  answer: {
    readonly status: number;
    readonly headers: Readonly<Record<string, string | string[] | undefined>>;
    readonly body: string;
  },
  latencyMs: number,
  what: string,
  now: Date,
): DeliveryOutcome {
  const outcome = httpOutcome(
    answer.status,
    latencyMs,
    what,
    parseRetryAfter(answer.headers['retry-after'], now),
  );
  const excerpt = answer.body.replace(/\s+/g, ' ').trim().slice(0, 200);
  if (outcome.status === 'delivered' || !excerpt) return outcome;
  return { ...outcome, error: `${outcome.error}: ${excerpt}` };
}

/**
 * `text` with every secret replaced, also in its URL-encoded form (a bot token sits in a URL),
 * and bounded in length: error texts are stored per attempt and shown to the alert's owner.
 */
export function redact(text: string, secrets: ReadonlyArray<string | undefined>): string {
  let out = text;
  for (const secret of secrets) {
    if (!secret) continue;
    for (const form of new Set([secret, encodeURIComponent(secret)]))
      out = out.split(form).join('[redacted]');
  }
  return out.length > MAX_ERROR_CHARS ? `${out.slice(0, MAX_ERROR_CHARS)}…` : out;
}

/** The outcome with its error text redacted (the one place adapters pass every outcome through). */
export function redactOutcome(
  outcome: DeliveryOutcome,
  secrets: ReadonlyArray<string | undefined>,
): DeliveryOutcome {
  if (outcome.status === 'delivered') {
    return outcome.detail === undefined ? outcome : { ...outcome, detail: redact(outcome.detail, secrets) };
  }
  return { ...outcome, error: redact(outcome.error, secrets) };
}

/** A readable reason from a thrown network error (undici and node:net put the useful code in `cause`). */
export function networkReason(error: unknown): string {
  const e = error as {
    name?: string;
    message?: string;
    code?: string;
    cause?: { code?: string; message?: string };
  };
  if (e?.name === 'AbortError' || e?.name === 'TimeoutError') return 'timed out or aborted';
  const code = e?.cause?.code ?? e?.code;
  const message = e?.cause?.message ?? e?.message ?? String(error);
  return code && !message.includes(code) ? `${code}: ${message}` : message;
}

/**
 * What an attempt's outcome says of its destination (destination-health.ts): `failed` when it did
 * not answer (a timeout, a refused or reset connection) or said it cannot take anything now (HTTP
 * 5xx, 429, 408; SMTP 421); `answered` for any other answer, a refusal included (it is up); `none`
 * when nothing reached it (a refused address, a missing setting, no connection free).
 */
export function destinationSignal(method: DeliveryMethod, outcome: DeliveryOutcome): DestinationSignal {
  if (outcome.status === 'delivered') return 'answered';
  const code = outcome.responseCode;
  if (outcome.status === 'failed') return code === null ? 'none' : 'answered';
  if (outcome.notSent) return 'none';
  if (code === null) return 'failed';
  // An SMTP 4xx is about one recipient (a full mailbox, greylisting), except 421: the server's.
  if (method === 'email') return code === 421 ? 'failed' : 'answered';
  return code >= 500 || code === 429 || code === 408 ? 'failed' : 'answered';
}
