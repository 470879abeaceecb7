/**
 * Webhook delivery: POST or PUT of the JSON body documented at `webhookBody`
 * (webhook-body.wire.ts: the event, and what a group's notification, a resolution or an
 * acknowledgement says in `notice`), with
 * - `X-Vigil-Delivery`: the delivery id, the same on every retry (receivers deduplicate on it);
 * - `X-Vigil-Timestamp`: the attempt's time in unix seconds;
 * - `X-Vigil-Signature: sha256=<hex HMAC-SHA256 of "<timestamp>.<body>">` with the signing secret,
 *   so a receiver can check origin and freshness (reject old timestamps to stop replays);
 * - `Authorization: Bearer <authToken>` when an auth token is set.
 * Custom headers are sent too, except the ones no client sends as written (hop-by-hop and framing
 * headers, values that are not printable ASCII; see webhook-headers.rules.ts), Content-Type,
 * Authorization (when a token is set) and X-Vigil-*. Those are dropped (the alert schema refuses
 * them on input; this is the last line for rows written before that rule).
 *
 * Redirects are not followed (the new address would escape the SSRF check): a 3xx fails, naming
 * where it pointed. 2xx delivered; 408, 429 and 5xx retried (honouring Retry-After); other 4xx fail.
 */
import { createHmac } from 'node:crypto';
import { answerOutcome, networkReason, redactOutcome } from './outcome.ts';
import { pinnedRequest } from './pinned-http.ts';
import { guardHost } from './ssrf.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome, WebhookTarget } from './types.ts';
import { webhookBody } from './webhook-body.wire.ts';
import { unsendableHeader } from './webhook-headers.rules.ts';

const MAX_ANSWER_BYTES = 4 * 1024;

/** The signature header's value for `body` sent at `timestamp` (unix seconds). */
export function signature(secret: string, timestamp: number, body: string): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`;
}

/** The headers of one request: custom ones first, then Vigil's own, which always win. */
export function webhookHeaders(
  target: WebhookTarget,
  ctx: DeliveryContext,
  body: string,
): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(target.headers)) {
    const lower = name.toLowerCase();
    if (lower === 'authorization' && target.authToken) continue;
    if (unsendableHeader(name, value)) continue;
    headers[lower] = value;
  }
  const timestamp = Math.floor(ctx.now.getTime() / 1_000);
  headers['content-type'] = 'application/json';
  headers['user-agent'] ??= 'vigil-alerts';
  headers['x-vigil-delivery'] = ctx.deliveryId;
  headers['x-vigil-timestamp'] = String(timestamp);
  if (target.signingSecret) headers['x-vigil-signature'] = signature(target.signingSecret, timestamp, body);
  if (target.authToken) headers.authorization = `Bearer ${target.authToken}`;
  return headers;
}

export function sendWebhook(
  target: WebhookTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const secrets = [target.authToken, target.signingSecret];
  return deliver(target, ctx, options).then((outcome) => redactOutcome(outcome, secrets));
}

async function deliver(
  target: WebhookTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const clock = options.monotonic ?? (() => performance.now());
  const started = clock();
  const elapsed = () => Math.round(clock() - started);
  const fail = (error: string): DeliveryOutcome => ({
    status: 'failed',
    responseCode: null,
    latencyMs: elapsed(),
    error,
  });
  let url: URL;
  try {
    url = new URL(target.url);
  } catch {
    return fail('webhook URL is not a URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return fail('webhook URL must be http(s)');
  if (url.username || url.password)
    return fail('webhook URL must not carry credentials; use auth_token or headers');
  if (target.method !== 'POST' && target.method !== 'PUT') return fail('webhook method must be POST or PUT');

  const guarded = await guardHost(options, url.hostname, 'webhook', elapsed);
  if (!guarded.ok) return guarded.outcome;
  const { pinned } = guarded;
  const body = webhookBody(ctx);
  try {
    const response = await pinnedRequest(
      pinned,
      url,
      {
        method: target.method,
        headers: webhookHeaders(target, ctx, body),
        body,
        timeoutMs: options.timeoutMs,
        signal: ctx.signal,
        maxBodyBytes: MAX_ANSWER_BYTES,
      },
      options.connections,
    );
    const latencyMs = elapsed();
    if (response.status >= 300 && response.status < 400) {
      const location = String(response.headers.location ?? '').slice(0, 200);
      return {
        status: 'failed',
        responseCode: response.status,
        latencyMs,
        error: `the receiver redirected (HTTP ${response.status}${location ? ` to ${location}` : ''}); redirects are not followed`,
      };
    }
    return answerOutcome(response, latencyMs, `the receiver at ${url.host}`, ctx.now);
  } catch (error) {
    return {
      status: 'retry',
      responseCode: null,
      latencyMs: elapsed(),
      error: `webhook: ${networkReason(error)}`,
    };
  }
}
