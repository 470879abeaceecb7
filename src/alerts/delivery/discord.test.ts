import { describe, expect, it } from 'vitest';
import { DISCORD_LIMITS, discordMessage, SEVERITY_COLOURS } from './discord.ts';
import { DISCORD_HOOK, hookUrlProblem } from './hook-url.rules.ts';
import { NO_ALLOWED_HOSTS } from './ssrf.ts';
import type { DeliveryContext } from './types.ts';

const ctx = (description: string, data: Record<string, unknown> = {}): DeliveryContext => ({
  deliveryId: 'dlv-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'a-1', name: 'BTC crash', description: null },
  event: {
    id: 'ev-1',
    type: 'flash_crash',
    severity: 'high',
    description,
    asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
    occurredAt: new Date('2025-01-02T03:04:05Z'),
    watchdog: 'price_anomaly',
    data,
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
});

// biome-ignore lint/suspicious/noExplicitAny: the payload is checked by the expectations.
type Json = any;
const chars = (s: string) => [...s].length;
const total = (embed: Json) =>
  chars(embed.title) +
  chars(embed.description) +
  chars(embed.footer.text) +
  embed.fields.reduce((n: number, f: Json) => n + chars(f.name) + chars(f.value), 0);

describe('Discord message', () => {
  it('is one embed coloured by severity, with the event as inline fields, pinging no one', () => {
    const message: Json = discordMessage(ctx('@everyone fell 12%', { change: -0.12 }));
    expect(message.allowed_mentions).toEqual({ parse: [] });
    expect(message.embeds).toHaveLength(1);
    const [embed] = message.embeds;
    expect(embed).toMatchObject({
      title: 'BTC crash',
      description: '@everyone fell 12%',
      color: SEVERITY_COLOURS.high,
      timestamp: '2025-01-02T03:04:05.000Z',
    });
    expect(embed.fields).toContainEqual({ name: 'Severity', value: 'high', inline: true });
    expect(embed.fields).toContainEqual({ name: 'change', value: '-0.12', inline: true });
    expect(embed.footer.text).toContain('dlv-1');
  });

  it('keeps every Discord limit, the 6000 total included, cutting with an ellipsis', () => {
    const long = discordMessage(ctx('d'.repeat(10_000))) as Json;
    expect(chars(long.embeds[0].description)).toBe(DISCORD_LIMITS.description);
    expect(long.embeds[0].description.endsWith('…')).toBe(true);

    const data = Object.fromEntries(Array.from({ length: 40 }, (_, i) => [`k${i}`, 'v'.repeat(2_000)]));
    const [embed] = (discordMessage(ctx('d'.repeat(10_000), data)) as Json).embeds;
    expect(embed.fields.length).toBeLessThanOrEqual(DISCORD_LIMITS.fields);
    for (const f of embed.fields) expect(chars(f.value)).toBeLessThanOrEqual(DISCORD_LIMITS.fieldValue);
    expect(total(embed)).toBeLessThanOrEqual(DISCORD_LIMITS.total);
    expect(chars(embed.description)).toBeGreaterThan(0);
  });

  it("accepts Discord's webhook URLs only, unless the host is allowed", () => {
    expect(
      hookUrlProblem('https://discord.com/api/webhooks/1/abc', DISCORD_HOOK, NO_ALLOWED_HOSTS),
    ).toBeNull();
    expect(
      hookUrlProblem('https://discordapp.com/api/webhooks/1/abc', DISCORD_HOOK, NO_ALLOWED_HOSTS),
    ).toBeNull();
    expect(hookUrlProblem('https://discord.com/channels/1', DISCORD_HOOK, NO_ALLOWED_HOSTS)).toMatch(
      /Discord webhook URL \(https:\/\/discord\.com\/api\/webhooks\/\.\.\.\)/,
    );
  });
});
