/**
 * Chat delivery against a local HTTP server acting as a Telegram-compatible bot API. The server
 * parses MarkdownV2 strictly (an unescaped reserved character is "can't parse entities", as the
 * real API answers), so an escaping mistake fails these tests.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sendChat } from '../src/alerts/delivery/chat.ts';
import { parseAllowedHosts, type Resolver } from '../src/alerts/delivery/ssrf.ts';
import type { ChatTarget, DeliveryContext, DeliveryOptions } from '../src/alerts/delivery/types.ts';
import { itWithFixtures, loadFixture } from './support/fixtures.ts';

const TOKEN = '123456:AAH-secret_token';

const ctx = (overrides: Partial<DeliveryContext> = {}): DeliveryContext => ({
  deliveryId: 'dlv-chat-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'alert-1', name: 'BTC [fast] moves_now!', description: null },
  event: {
    id: 'ev-1',
    type: 'unusual_volume',
    severity: 'high',
    description: 'Volume 3.5x (avg) > limit; a*b=c #1 {x} |y| ~z~ `q` \\ + - !',
    asset: { symbol: 'BTC-USD', assetType: 'crypto' },
    occurredAt: new Date('2025-01-02T03:04:05.000Z'),
    watchdog: 'unusual_volume',
    data: { ratio: 3.5 },
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
  ...overrides,
});

const options: DeliveryOptions = { timeoutMs: 5_000, allowedHosts: parseAllowedHosts(['127.0.0.1']) };

interface Call {
  readonly path: string;
  readonly body: Record<string, unknown>;
}
type Reply = (call: Call, res: ServerResponse) => void;

const servers: Server[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => new Promise((resolve) => s.close(resolve))));
});

/** The OK answer: the recorded real one when the recordings are present, else the same shape. */
function okAnswer(chatId: unknown): string {
  try {
    const recorded = JSON.parse(loadFixture('telegram/sendMessage-ok.json').body) as {
      result: { chat: object };
    };
    return JSON.stringify({
      ...recorded,
      result: { ...recorded.result, chat: { ...recorded.result.chat, id: chatId } },
    });
  } catch {
    return JSON.stringify({
      ok: true,
      result: { message_id: 40, chat: { id: chatId, type: 'private' }, date: 1 },
    });
  }
}

/** Strict MarkdownV2 check: reserved characters must be escaped unless they open/close * or _. */
function markdownV2Error(text: string): string | null {
  const open = { '*': false, _: false };
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '*' || c === '_') open[c] = !open[c];
    else if ('[]()~`>#+-=|{}.!'.includes(c)) return `character '${c}' is reserved and must be escaped`;
  }
  return open['*'] || open._ ? "can't find end of the entity" : null;
}

const strictBotApi: Reply = (call, res) => {
  const problem = markdownV2Error(String(call.body.text));
  res.setHeader('content-type', 'application/json');
  if (problem) {
    res.statusCode = 400;
    res.end(
      JSON.stringify({
        ok: false,
        error_code: 400,
        description: `Bad Request: can't parse entities: ${problem}`,
      }),
    );
    return;
  }
  res.end(okAnswer(call.body.chat_id));
};

async function botApi(reply: Reply): Promise<{ base: string; calls: Call[] }> {
  const calls: Call[] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const call = { path: req.url ?? '', body: JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') };
      calls.push(call);
      reply(call, res);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, calls };
}

const target = (base: string, chatIds = ['1001', '-100200']): ChatTarget => ({
  botToken: TOKEN,
  chatIds,
  apiBaseUrl: base,
});

const json = (res: ServerResponse, status: number, body: object, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json', ...headers });
  res.end(JSON.stringify(body));
};

describe('sendChat', () => {
  it('sends escaped MarkdownV2 to every chat id at /bot<token>/sendMessage', async () => {
    const { base, calls } = await botApi(strictBotApi);
    const outcome = await sendChat(target(base), ctx(), options);
    expect(outcome).toMatchObject({ status: 'delivered', responseCode: 200 });
    expect(calls.map((c) => c.path)).toEqual([`/bot${TOKEN}/sendMessage`, `/bot${TOKEN}/sendMessage`]);
    expect(calls.map((c) => c.body.chat_id)).toEqual(['1001', '-100200']);
    expect(calls[0]?.body).toMatchObject({ parse_mode: 'MarkdownV2', disable_web_page_preview: true });
    expect(String(calls[0]?.body.text)).toContain('BTC \\[fast\\] moves\\_now\\!');
    expect(String(calls[0]?.body.text)).toContain('\\`q\\` \\\\ \\+ \\- \\!');
  });

  it('keeps a base URL path and sends test messages as such', async () => {
    const { base, calls } = await botApi(strictBotApi);
    expect(await sendChat(target(`${base}/proxy/`, ['7']), ctx({ test: true }), options)).toMatchObject({
      status: 'delivered',
    });
    expect(calls[0]?.path).toBe(`/proxy/bot${TOKEN}/sendMessage`);
    expect(String(calls[0]?.body.text)).toMatch(/^_Test message/);
  });

  it('reports a parse failure as permanent, naming the chat, without the token', async () => {
    const { base } = await botApi((_call, res) =>
      json(res, 400, {
        ok: false,
        error_code: 400,
        description: "Bad Request: can't parse entities: at byte 3",
      }),
    );
    const outcome = await sendChat(target(base, ['55']), ctx(), options);
    expect(JSON.stringify(outcome)).not.toContain(TOKEN);
    expect(outcome).toMatchObject({
      status: 'failed',
      responseCode: 400,
      error:
        "sent to 0 of 1 chats; chat 55: the chat API answered HTTP 400: Bad Request: can't parse entities: at byte 3",
    });
  });

  it('honours retry_after of a 429, in the body or the Retry-After header', async () => {
    const inBody = await botApi((_call, res) =>
      json(res, 429, {
        ok: false,
        error_code: 429,
        description: 'Too Many Requests: retry after 17',
        parameters: { retry_after: 17 },
      }),
    );
    expect(await sendChat(target(inBody.base), ctx(), options)).toMatchObject({
      status: 'retry',
      responseCode: 429,
      retryAfterMs: 17_000,
      error: 'chat 1001: the chat API answered HTTP 429: Too Many Requests: retry after 17',
    });
    expect(inBody.calls).toHaveLength(1);
    const inHeader = await botApi((_call, res) => json(res, 429, { ok: false }, { 'retry-after': '9' }));
    expect(await sendChat(target(inHeader.base), ctx(), options)).toMatchObject({
      status: 'retry',
      retryAfterMs: 9_000,
    });
  });

  it('retries a 5xx and a closed port; never puts the token in an error', async () => {
    const { base } = await botApi((_call, res) =>
      json(res, 502, { ok: false, description: `upstream bot${TOKEN} down` }),
    );
    const bad = await sendChat(target(base), ctx(), options);
    expect(bad).toMatchObject({ status: 'retry', responseCode: 502 });
    expect(JSON.stringify(bad)).not.toContain(TOKEN);
    expect(JSON.stringify(bad)).not.toContain('AAH-secret');

    const closed = await botApi(strictBotApi);
    await new Promise((resolve) => servers.pop()?.close(resolve));
    const refused = await sendChat(target(closed.base), ctx(), options);
    expect(refused).toMatchObject({ status: 'retry', responseCode: null });
    expect(JSON.stringify(refused)).not.toContain(TOKEN);
  });

  it('on a partial refusal still sends to the others and fails naming the refused chat', async () => {
    const { base, calls } = await botApi((call, res) =>
      call.body.chat_id === 'gone'
        ? json(res, 400, { ok: false, error_code: 400, description: 'Bad Request: chat not found' })
        : strictBotApi(call, res),
    );
    const outcome = await sendChat(target(base, ['1', 'gone', '3']), ctx(), options);
    expect(calls).toHaveLength(3);
    expect(outcome).toMatchObject({
      status: 'failed',
      error: 'sent to 2 of 3 chats; chat gone: the chat API answered HTTP 400: Bad Request: chat not found',
    });
  });

  it('stops at a retryable answer (the next attempt resends to every chat)', async () => {
    const { base, calls } = await botApi((call, res) =>
      call.body.chat_id === '2' ? json(res, 503, { ok: false }) : strictBotApi(call, res),
    );
    expect(await sendChat(target(base, ['1', '2', '3']), ctx(), options)).toMatchObject({ status: 'retry' });
    expect(calls.map((c) => c.body.chat_id)).toEqual(['1', '2']);
  });

  itWithFixtures('treats the recorded 401 of a wrong token as permanent', async () => {
    const recorded = loadFixture('telegram/getMe-error-401-unauthorized.json');
    const { base } = await botApi((_call, res) => {
      res.writeHead(recorded.status, { 'content-type': 'application/json' });
      res.end(recorded.body);
    });
    expect(await sendChat(target(base, ['1']), ctx(), options)).toMatchObject({
      status: 'failed',
      responseCode: 401,
      error: expect.stringContaining('Unauthorized'),
    });
  });

  it('refuses an internal API base URL, also behind a name', async () => {
    const resolver: Resolver = async () => [{ address: '192.168.7.7', family: 4 }];
    expect(await sendChat(target('http://169.254.169.254'), ctx(), options)).toMatchObject({
      status: 'failed',
      error: 'chat API refused: 169.254.169.254 is a cloud metadata address',
    });
    expect(
      await sendChat(target('https://bot.internal.example'), ctx(), { ...options, resolver }),
    ).toMatchObject({
      status: 'failed',
      error: 'chat API refused: bot.internal.example resolves to 192.168.7.7, a private address',
    });
    const { base, calls } = await botApi(strictBotApi);
    const notListed = await sendChat(target(base), ctx(), {
      ...options,
      allowedHosts: parseAllowedHosts([]),
    });
    expect(notListed).toMatchObject({
      status: 'failed',
      error: 'chat API refused: 127.0.0.1 is a loopback address',
    });
    expect(calls).toHaveLength(0);
  });
});
