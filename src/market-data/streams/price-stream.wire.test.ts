import { afterEach, describe, expect, it, vi } from 'vitest';
import type { PriceTick } from '../hub/price-hub.ts';
import { messages, ohlcvItem, parsePathSubscription, priceItem } from './price-stream.protocol.ts';
import { type DataOutlet, PriceSubscription } from './price-stream.subscription.ts';
import { dataMessageText, heartbeatTexts, itemText, messageText } from './price-stream.wire.ts';

const tick = (over: Partial<PriceTick> = {}): PriceTick => ({
  instrument: { symbol: 'AAPL', assetClass: 'equity', market: 'US' },
  symbol: 'AAPL',
  seq: 7,
  price: 201.5,
  change: 1.5,
  changePercent: 0.75,
  volume: null,
  currency: 'USD',
  size: 10,
  asOf: new Date('2026-01-05T15:00:00.123Z'),
  provider: 'fake "quoted" \u2028 ünï',
  confidence: 1,
  live: true,
  marketState: 'regular',
  snapshot: false,
  ...over,
});

/** An outlet that keeps the texts the connection would send. */
function recorder(): DataOutlet & { readonly texts: string[] } {
  const texts: string[] = [];
  return { texts, backedUp: () => false, send: (message) => texts.push(messageText(message)) };
}

const flushed = () => new Promise((resolve) => setImmediate(resolve));

afterEach(() => {
  vi.restoreAllMocks();
});

describe('price stream wire', () => {
  it('puts a data message together byte for byte as JSON.stringify writes it', () => {
    const bar = { symbol: 'BTC/USDT', time: new Date(0), open: 1, high: 2, low: 0.5, close: 1.5 };
    const cases = [
      messages.data('price', 'id-1', [priceItem(tick()), priceItem(tick({ symbol: 'MSFT', seq: 1 }))]),
      messages.data('quote', 'id-"2"', [{ ...priceItem(tick()), snapshot: true }]),
      messages.data('ohlcv', 'id-3', [ohlcvItem({ ...bar, volume: 3, closed: false })]),
      messages.data('multi_asset', 'id-4', []),
      messages.data('price', 'id-5', [null, 3, 'x', undefined]),
    ];
    for (const message of cases) expect(dataMessageText(message)).toBe(JSON.stringify(message));
    const heartbeat = messages.heartbeat(2);
    expect(messageText(heartbeat)).toBe(JSON.stringify(heartbeat));
  });

  it('gives one tick one frozen item, its JSON built once for every subscription', () => {
    const t = tick();
    const item = priceItem(t);
    expect(priceItem(t)).toBe(item);
    expect(Object.isFrozen(item)).toBe(true);
    expect(priceItem(tick())).not.toBe(item);
    const stringify = vi.spyOn(JSON, 'stringify');
    expect(itemText(item)).toBe(itemText(item));
    expect(stringify.mock.calls.filter(([value]) => value === item)).toHaveLength(1);
  });

  it('sends two subscriptions of the same tick the same item bytes, differing only in their ids', async () => {
    const [a, b] = [recorder(), recorder()];
    const subs = [
      new PriceSubscription('sub-a', 'price', 1_000, [tick().instrument], a),
      new PriceSubscription('sub-b', 'price', 1_000, [tick().instrument], b),
    ];
    const stringify = vi.spyOn(JSON, 'stringify');
    const shared = tick({ snapshot: true });
    for (const sub of subs) sub.onTick(shared);
    await flushed();
    const item = priceItem(shared);
    expect(stringify.mock.calls.filter(([value]) => value === item)).toHaveLength(1);
    const [textA, textB] = [a.texts[0]!, b.texts[0]!];
    const items = (text: string) => text.slice(text.indexOf('"data":['), text.indexOf('],"timestamp"'));
    expect(items(textA)).toBe(`"data":[${JSON.stringify(item)}`);
    expect(items(textB)).toBe(items(textA));
    // Byte for byte the same message, but for the subscription's id and the time it went out.
    const envelope = (text: string, id: string) =>
      text
        .replace(`"subscription_id":"${id}"`, '"subscription_id":"-"')
        .replace(/"timestamp":"[^"]+","metadata"/, '"timestamp":"-","metadata"');
    expect(envelope(textA, 'sub-a')).toBe(envelope(textB, 'sub-b'));
    expect(JSON.parse(textA)).toMatchObject({ type: 'data', subscription_id: 'sub-a', data: [item] });
    for (const sub of subs) sub.end();
  });

  it('marks a snapshot overtaken before it went out on the newer item, without touching the shared one', async () => {
    const out = recorder();
    const sub = new PriceSubscription('sub', 'price', 1_000, [tick().instrument], out);
    const later = tick({ seq: 8, price: 202 });
    sub.onTick(tick({ snapshot: true }));
    sub.onTick(later);
    await flushed();
    expect(JSON.parse(out.texts[0]!).data).toEqual([{ ...priceItem(later), snapshot: true }]);
    expect(priceItem(later).snapshot).toBe(false);
    sub.end();
  });

  it('builds each heartbeat text of a beat once per subscription count', () => {
    const build = vi.fn((n: number) => ({ type: 'heartbeat', timestamp: 't', active_subscriptions: n }));
    const heartbeat = heartbeatTexts(build);
    expect(heartbeat(2)).toBe('{"type":"heartbeat","timestamp":"t","active_subscriptions":2}');
    heartbeat(2);
    heartbeat(0);
    expect(build).toHaveBeenCalledTimes(2);
  });

  it('reads a /ws/prices path and query as a subscribe message', () => {
    const parsed = parsePathSubscription(' aapl, ,BTC/USDT', '/ws/prices/x?interval_ms=250&market=us');
    expect(parsed).toMatchObject({
      ok: true,
      message: { type: 'subscribe', stream_type: 'price', symbols: ['aapl', 'BTC/USDT'], interval_ms: 250 },
    });
    expect(parsed.ok && parsed.message.market).toBe('US');
    expect(parsePathSubscription('', '/ws/prices/')).toMatchObject({ ok: false, code: 'SUBSCRIPTION_ERROR' });
    expect(parsePathSubscription('AAPL', '/?interval_ms=5')).toMatchObject({ ok: false });
  });
});
