import { describe, expect, it } from 'vitest';
import { decodeRelay, encodeRelay, MAX_PAYLOAD_BYTES, type RelayedUpdate } from './relay-wire.ts';

const update = (key: string, price: number): RelayedUpdate => ({
  key,
  sentAt: 1_700_000_000_123,
  update: {
    price,
    change: -1.5,
    changePercent: -0.0123,
    volume: null,
    currency: 'USD',
    size: 0.25,
    asOf: new Date('2026-11-28T12:00:00.500Z'),
    provider: 'binance',
    confidence: 1,
    live: true,
  },
});

describe('relay wire', () => {
  it('reads back what it wrote, every field', () => {
    const payloads = encodeRelay('inst-a', [update('crypto:BTC/USDT', 97_000.5)], ['equity:AAPL']);
    expect(payloads).toHaveLength(1);
    expect(decodeRelay(payloads[0]!)).toEqual({
      from: 'inst-a',
      updates: [update('crypto:BTC/USDT', 97_000.5)],
      wanted: ['equity:AAPL'],
    });
  });

  it('splits many updates into payloads under the NOTIFY limit, losing none', () => {
    const updates = Array.from({ length: 500 }, (_, i) => update(`crypto:SYM${i}/USDT`, 100 + i));
    const wanted = Array.from({ length: 300 }, (_, i) => `equity:W${i}`);
    const payloads = encodeRelay('inst-a', updates, wanted);
    expect(payloads.length).toBeGreaterThan(1);
    for (const p of payloads) expect(Buffer.byteLength(p)).toBeLessThanOrEqual(MAX_PAYLOAD_BYTES);
    const back = payloads.map((p) => decodeRelay(p)!);
    expect(back.flatMap((m) => m.updates)).toEqual(updates);
    expect(back.flatMap((m) => m.wanted)).toEqual(wanted);
  });

  it('sends nothing for nothing, and ignores what is not a relay message', () => {
    expect(encodeRelay('inst-a', [])).toEqual([]);
    expect(decodeRelay('not json')).toBeNull();
    expect(decodeRelay('{"i":"x","t":[["k","not a price"]]}')).toBeNull();
    expect(
      decodeRelay('{"i":"x","t":[["k",1,null,null,null,"USD",null,1,"p",1,1,1]]}')?.updates[0]?.update.price,
    ).toBe(1);
  });
});
