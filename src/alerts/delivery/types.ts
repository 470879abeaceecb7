/**
 * The narrow interface between alert firing and the outside world: one adapter per delivery
 * method (email.ts, chat.ts, webhook.ts), each `(target, ctx, options) => DeliveryOutcome`.
 * Adapters never throw for a failed delivery; the outcome says whether another attempt can help.
 */
import type { AlertEvent } from '../alert-event.model.ts';
import type { Notice } from '../episode.model.ts';
import type { PinnedConnections } from './pinned-http.ts';
import type { SmtpServerSettings } from './smtp-credentials.rules.ts';
import type { SmtpPools } from './smtp-pools.ts';
import type { AllowedHosts, Resolver } from './ssrf.ts';

export interface DeliveryAlert {
  readonly id: string;
  readonly name: string;
  readonly description: string | null;
}

export interface DeliveryContext {
  /** Constant across the retries of one delivery (the receiver's idempotency key). */
  readonly deliveryId: string;
  /** 1-based. */
  readonly attempt: number;
  readonly alert: DeliveryAlert;
  readonly event: AlertEvent;
  /** The attempt's time (message timestamps, the webhook's X-Vigil-Timestamp, Retry-After dates). */
  readonly now: Date;
  /** Aborts the attempt (shutdown); an aborted attempt is a `retry`. */
  readonly signal: AbortSignal;
  /** true for a test-send */
  readonly test: boolean;
  /** What it says: the event, a group's events, a resolution or an acknowledgement (episode.model.ts). */
  readonly notice: Notice;
}

export interface EmailTarget {
  smtpHost: string;
  smtpPort: number;
  smtpUser?: string;
  smtpPassword?: string;
  /** false: plain SMTP (a local relay); true: TLS required (STARTTLS, or implicit TLS). */
  useTls: boolean;
  /** The login is the server's SMTP_USER and SMTP_PASSWORD (the sender checks the connection is the server's). */
  serverLogin?: boolean;
  /** TLS from the first byte instead of STARTTLS; defaults to `smtpPort === 465`. */
  implicitTls?: boolean;
  fromEmail: string;
  toEmails: string[];
}

export interface ChatTarget {
  botToken: string;
  chatIds: string[];
  /** Without a trailing `/bot...`: `https://api.telegram.org`. */
  apiBaseUrl: string;
}

export interface WebhookTarget {
  url: string;
  method: 'POST' | 'PUT';
  headers: Record<string, string>;
  authToken?: string;
  signingSecret?: string;
}

export type DeliveryOutcome =
  | { status: 'delivered'; responseCode: number | null; latencyMs: number; detail?: string }
  | {
      status: 'retry';
      responseCode: number | null;
      latencyMs: number;
      error: string;
      retryAfterMs?: number;
      /** Nothing was sent (no connection was free in time): it says nothing of the destination. */
      notSent?: true;
    }
  /** Permanent: no retry helps (a refused address, a 5xx SMTP reply, a 4xx from a receiver). */
  | { status: 'failed'; responseCode: number | null; latencyMs: number; error: string };

export interface DeliveryOptions {
  /** Bound of one network exchange (connect, TLS, SMTP dialogue, one HTTP request). */
  readonly timeoutMs: number;
  /** ALERT_DELIVERY_ALLOWED_HOSTS, parsed with parseAllowedHosts. */
  readonly allowedHosts: AllowedHosts;
  /** DNS lookup (tests inject one); the system resolver by default. */
  readonly resolver?: Resolver;
  /** Monotonic milliseconds for latency; performance.now by default. */
  readonly monotonic?: () => number;
  /** HTTP connections kept between attempts (see pinned-http.ts); one connection per request without. */
  readonly connections?: PinnedConnections;
  /** SMTP_* and SMTP_PLAINTEXT_AUTH_HOSTS, where an email login may go (smtp-credentials.rules.ts); none: no server login, no clear-text password. */
  readonly smtp?: SmtpServerSettings;
}

export interface EmailOptions extends DeliveryOptions {
  /** Extra trust anchors for the SMTP server's certificate (tests: a self-signed one). */
  readonly tls?: { readonly ca?: string | Buffer };
  /** SMTP connections kept between deliveries (see smtp-pools.ts); one connection per message without. */
  readonly mailPools?: SmtpPools;
}
