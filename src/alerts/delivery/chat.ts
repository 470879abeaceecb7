/**
 * Chat delivery through a Telegram-compatible bot API: POST {apiBaseUrl}/bot<token>/sendMessage
 * to the target's chat ids, as MarkdownV2 with every reserved character escaped.
 *
 * Each chat id is a delivery of its own (targets.ts): an attempt sends to one chat, with its own
 * deadline and retries, and a chat that accepted is never sent to again. Several chat ids come only
 * from deliveries stored before that; their chats are sent to one after the other:
 * - An answer worth retrying (429, 5xx, network) stops the attempt at once and asks for a retry;
 *   the next attempt sends to EVERY chat again (a chat that already got the message may get it
 *   twice).
 * - A permanent refusal (a 4xx such as "chat not found" or "can't parse entities") does not stop
 *   the others; the attempt then ends `failed`, naming the refused chats, because resending to
 *   the chats that succeeded would not make the refused ones work.
 *
 * The token is part of the URL: no error text contains the URL, and every text is redacted.
 */
import { chatEndpoint } from './chat-endpoint.ts';
import { httpOutcome, networkReason, parseRetryAfter, redactOutcome } from './outcome.ts';
import { pinnedRequest } from './pinned-http.ts';
import { chatText } from './render.ts';
import { guardHost, type PinnedHost } from './ssrf.ts';
import type { ChatTarget, DeliveryContext, DeliveryOptions, DeliveryOutcome } from './types.ts';

const MAX_ANSWER_BYTES = 16 * 1024;

export function sendChat(
  target: ChatTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  return deliver(target, ctx, options).then((outcome) => redactOutcome(outcome, [target.botToken]));
}

async function deliver(
  target: ChatTarget,
  ctx: DeliveryContext,
  options: DeliveryOptions,
): Promise<DeliveryOutcome> {
  const clock = options.monotonic ?? (() => performance.now());
  const started = clock();
  const elapsed = () => Math.round(clock() - started);
  let base: URL;
  try {
    base = new URL(target.apiBaseUrl);
    if (base.protocol !== 'https:' && base.protocol !== 'http:') throw new Error('not http(s)');
  } catch {
    return {
      status: 'failed',
      responseCode: null,
      latencyMs: 0,
      error: 'chat API base URL is not an http(s) URL',
    };
  }
  if (target.chatIds.length === 0) {
    return { status: 'failed', responseCode: null, latencyMs: 0, error: 'no chat ids to send to' };
  }
  const guarded = await guardHost(options, base.hostname, 'chat API', elapsed);
  if (!guarded.ok) return guarded.outcome;
  const { pinned } = guarded;
  const url = chatEndpoint(base, target.botToken);
  const text = chatText(ctx);
  const refused: string[] = [];
  let lastCode: number | null = null;
  for (const chatId of target.chatIds) {
    const outcome = await sendOne(pinned, url, chatId, text, ctx, options, elapsed);
    lastCode = outcome.responseCode;
    if (outcome.status === 'retry') return { ...outcome, error: `chat ${chatId}: ${outcome.error}` };
    if (outcome.status === 'failed') refused.push(`chat ${chatId}: ${outcome.error}`);
  }
  const sent = target.chatIds.length - refused.length;
  if (refused.length) {
    return {
      status: 'failed',
      responseCode: lastCode,
      latencyMs: elapsed(),
      error: `sent to ${sent} of ${target.chatIds.length} chats; ${refused.join('; ')}`,
    };
  }
  return {
    status: 'delivered',
    responseCode: lastCode,
    latencyMs: elapsed(),
    detail: `sent to ${sent} chats`,
  };
}

interface BotAnswer {
  ok?: boolean;
  description?: string;
  parameters?: { retry_after?: number };
}

async function sendOne(
  pinned: PinnedHost,
  url: URL,
  chatId: string,
  text: string,
  ctx: DeliveryContext,
  options: DeliveryOptions,
  elapsed: () => number,
): Promise<DeliveryOutcome> {
  let status: number;
  let answer: BotAnswer = {};
  let retryAfterHeader: string | string[] | undefined;
  try {
    const response = await pinnedRequest(
      pinned,
      url,
      {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'user-agent': 'vigil-alerts' },
        body: JSON.stringify({
          chat_id: chatId,
          text,
          parse_mode: 'MarkdownV2',
          disable_web_page_preview: true,
        }),
        timeoutMs: options.timeoutMs,
        signal: ctx.signal,
        maxBodyBytes: MAX_ANSWER_BYTES,
      },
      options.connections,
    );
    status = response.status;
    retryAfterHeader = response.headers['retry-after'];
    try {
      answer = JSON.parse(response.body) as BotAnswer;
    } catch {
      // Not JSON (a proxy's error page): the status alone decides.
    }
  } catch (error) {
    return { status: 'retry', responseCode: null, latencyMs: elapsed(), error: networkReason(error) };
  }
  // The Bot API says how long to wait in its body; a proxy in front of it may use the header.
  const retryAfterSeconds = answer.parameters?.retry_after;
  const retryAfterMs =
    typeof retryAfterSeconds === 'number' && retryAfterSeconds >= 0
      ? retryAfterSeconds * 1_000
      : parseRetryAfter(retryAfterHeader, ctx.now);
  const outcome = httpOutcome(status, elapsed(), 'the chat API', retryAfterMs);
  if (outcome.status === 'delivered' && answer.ok === false) {
    return {
      status: 'failed',
      responseCode: status,
      latencyMs: outcome.latencyMs,
      error: describe(answer, status),
    };
  }
  if (outcome.status === 'delivered') return outcome;
  return { ...outcome, error: describe(answer, status) };
}

function describe(answer: BotAnswer, status: number): string {
  const description = typeof answer.description === 'string' ? answer.description.slice(0, 200) : '';
  return description
    ? `the chat API answered HTTP ${status}: ${description}`
    : `the chat API answered HTTP ${status}`;
}
