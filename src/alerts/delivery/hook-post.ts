/**
 * One JSON POST to a chat service's incoming webhook (Slack, Discord, Teams) or an Alertmanager
 * receiver, with the guards every HTTP channel has: the SSRF guard and the connection pinned to the
 * checked address (ssrf.ts, pinned-http.ts), no redirects, and the answer read as webhook.ts reads
 * it (2xx delivered; 408, 429 and 5xx retried, honouring Retry-After; other 4xx final). A chat
 * service's URL is its credential, so the URL is kept out of every outcome's text.
 */
import { answerOutcome, networkReason, redactOutcome } from './outcome.ts';
import { pinnedRequest } from './pinned-http.ts';
import { guardHost } from './ssrf.ts';
import type { DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

const MAX_ANSWER_BYTES = 4 * 1024;

export interface HookPost {
  /** Named in messages: `slack`. */
  readonly channel: string;
  readonly url: string;
  readonly body: string;
}

export async function postToHook(
  post: HookPost,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  return redactOutcome(await deliver(post, ctx, options), [post.url]);
}

async function deliver(
  { channel, url: raw, body }: HookPost,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const clock = options.monotonic ?? (() => performance.now());
  const started = clock();
  const elapsed = () => Math.round(clock() - started);
  if (!URL.canParse(raw)) return failed(`${channel} webhook URL is not a URL`, elapsed());
  const url = new URL(raw);
  if (url.protocol !== 'https:' && url.protocol !== 'http:')
    return failed(`${channel} webhook URL must be http(s)`, elapsed());
  const guarded = await guardHost(options, url.hostname, channel, elapsed);
  if (!guarded.ok) return guarded.outcome;
  try {
    const response = await pinnedRequest(
      guarded.pinned,
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'vigil-alerts' },
        body,
        timeoutMs: options.timeoutMs,
        signal: ctx.signal,
        maxBodyBytes: MAX_ANSWER_BYTES,
      },
      options.connections,
    );
    const latencyMs = elapsed();
    if (response.status >= 300 && response.status < 400)
      return {
        status: 'failed',
        responseCode: response.status,
        latencyMs,
        error: `${channel} redirected (HTTP ${response.status}); redirects are not followed`,
      };
    return answerOutcome(response, latencyMs, `${channel} at ${url.host}`, ctx.now);
  } catch (error) {
    return {
      status: 'retry',
      responseCode: null,
      latencyMs: elapsed(),
      error: `${channel}: ${networkReason(error)}`,
    };
  }
}

function failed(error: string, latencyMs: number): DeliveryOutcome {
  return { status: 'failed', responseCode: null, latencyMs, error };
}
