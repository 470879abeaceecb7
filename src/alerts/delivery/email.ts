/**
 * Email delivery over SMTP with nodemailer. Security by configuration:
 * - implicit TLS (TLS from the first byte) when `implicitTls`, by default on port 465;
 * - otherwise, with `useTls` (the default), STARTTLS is REQUIRED: a server that does not offer it
 *   fails the delivery rather than receiving the message (and a password) in clear text;
 * - `useTls: false` is plain SMTP, for a local relay.
 * Certificates are always verified. The client logs in only when a user is given.
 *
 * SMTP replies decide the outcome: 4xx (greylisting, a full mailbox) may pass later, 5xx will not;
 * connection failures and timeouts are retried.
 */
import { isIP } from 'node:net';
import { networkReason, redactOutcome } from './outcome.ts';
import { emailHtml, emailSubject, emailText } from './render.ts';
import { NO_SMTP_SERVER, smtpLoginRefusal } from './smtp-credentials.rules.ts';
import { SMTP_MESSAGES_PER_CONNECTION } from './smtp-pools.ts';
import { guardHost } from './ssrf.ts';
import type { DeliveryContext, DeliveryOutcome, EmailOptions, EmailTarget } from './types.ts';

interface SmtpError {
  readonly message?: string;
  readonly code?: string;
  readonly responseCode?: number;
  readonly response?: string;
  /** The SMTP command that was answered (`RCPT TO`, `AUTH PLAIN`, `STARTTLS`). */
  readonly command?: string;
}

export function sendEmail(
  target: EmailTarget,
  ctx: DeliveryContext,
  options: EmailOptions,
): Promise<DeliveryOutcome> {
  return deliver(target, ctx, options).then((outcome) => redactOutcome(outcome, [target.smtpPassword]));
}

async function deliver(
  target: EmailTarget,
  ctx: DeliveryContext,
  options: EmailOptions,
): Promise<DeliveryOutcome> {
  const clock = options.monotonic ?? (() => performance.now());
  const started = clock();
  const elapsed = () => Math.round(clock() - started);
  if (ctx.signal.aborted)
    return { status: 'retry', responseCode: null, latencyMs: 0, error: 'aborted before sending' };
  // Before any lookup or connection: a login that must not go to this connection fails for good.
  const refused = smtpLoginRefusal(target, options.smtp ?? NO_SMTP_SERVER);
  if (refused) return { status: 'failed', responseCode: null, latencyMs: elapsed(), error: refused };
  const guarded = await guardHost(options, target.smtpHost, 'SMTP host', elapsed);
  if (!guarded.ok) return guarded.outcome;
  const address = guarded.pinned.addresses[0]?.address ?? target.smtpHost;

  const implicitTls = target.implicitTls ?? target.smtpPort === 465;
  const host = target.smtpHost.replace(/^\[(.*)\]$/, '$1');
  // nodemailer loads with the first email (many servers never send one).
  const { default: nodemailer } = await import('nodemailer');
  const transportOptions = {
    // Connect to the checked address; the name stays the TLS server name (SNI and certificate).
    host: address,
    port: target.smtpPort,
    secure: target.useTls && implicitTls,
    requireTLS: target.useTls && !implicitTls,
    ignoreTLS: !target.useTls,
    ...(target.smtpUser ? { auth: { user: target.smtpUser, pass: target.smtpPassword ?? '' } } : {}),
    tls: {
      // SNI carries names only (RFC 6066); an IP target is verified against the IP itself.
      ...(isIP(host) ? {} : { servername: host }),
      ...(options.tls?.ca ? { ca: options.tls.ca } : {}),
    },
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
    dnsTimeout: options.timeoutMs,
    disableFileAccess: true,
    disableUrlAccess: true,
    logger: false,
    debug: false,
  };
  const message = (signal: AbortSignal) => ({
    from: target.fromEmail,
    to: target.toEmails,
    subject: emailSubject(ctx),
    text: emailText(ctx),
    html: emailHtml(ctx),
    headers: { 'X-Vigil-Delivery': ctx.deliveryId },
    // Cancels the SMTP dialogue and closes its socket at once (shutdown, deadline).
    signal,
  });
  const pools = options.mailPools;
  try {
    let info: SentInfo;
    if (pools && !pools.closed) {
      const key = {
        address,
        port: target.smtpPort,
        tls: `${transportOptions.secure}/${transportOptions.requireTLS}/${transportOptions.ignoreTLS}`,
        servername: host,
        user: target.smtpUser,
        password: target.smtpPassword,
      };
      const pooled = {
        pool: true,
        maxConnections: pools.connectionsPerServer,
        maxMessages: SMTP_MESSAGES_PER_CONNECTION,
      };
      const sent = await pools.use(
        key,
        () => nodemailer.createTransport({ ...transportOptions, ...pooled }),
        { signal: ctx.signal, waitMs: options.timeoutMs },
        // The deadline starts with the transaction, once a connection is free for it.
        (transport) =>
          transport.sendMail(message(AbortSignal.any([ctx.signal, AbortSignal.timeout(options.timeoutMs)]))),
      );
      if (sent === 'busy') {
        return {
          status: 'retry',
          responseCode: null,
          latencyMs: elapsed(),
          notSent: true,
          error: ctx.signal.aborted
            ? 'SMTP: aborted before sending'
            : 'SMTP: no connection to the server was free in time; not sent',
        };
      }
      info = sent;
    } else {
      const transport = nodemailer.createTransport(transportOptions);
      try {
        info = await transport.sendMail(message(ctx.signal));
      } finally {
        transport.close();
      }
    }
    const code = replyCode(info.response);
    const rejected = (info.rejected ?? []).map(String);
    return {
      status: 'delivered',
      responseCode: code,
      latencyMs: elapsed(),
      ...(rejected.length ? { detail: `accepted except: ${rejected.join(', ')}` } : {}),
    };
  } catch (raw) {
    return smtpFailure(raw as SmtpError, ctx.signal.aborted, elapsed());
  }
}

interface SentInfo {
  readonly response?: string;
  readonly rejected?: ReadonlyArray<unknown>;
}

function replyCode(response: string | undefined): number | null {
  const match = /^(\d{3})/.exec(response ?? '');
  return match ? Number(match[1]) : null;
}

/** The outcome of a nodemailer error. */
export function smtpFailure(error: SmtpError, aborted: boolean, latencyMs: number): DeliveryOutcome {
  if (aborted) return { status: 'retry', responseCode: null, latencyMs, error: 'SMTP: aborted' };
  const code = error.responseCode ?? replyCode(error.response);
  if (code && code >= 400) {
    const reply =
      (error.response ?? '').replace(/\s+/g, ' ').trim() || `${code} ${error.message ?? ''}`.trim();
    const text = `SMTP ${error.command ?? 'server'} rejected: ${reply}`;
    return code >= 500
      ? { status: 'failed', responseCode: code, latencyMs, error: text }
      : { status: 'retry', responseCode: code, latencyMs, error: text };
  }
  return { status: 'retry', responseCode: null, latencyMs, error: `SMTP: ${networkReason(error)}` };
}
