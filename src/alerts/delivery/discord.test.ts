import { describe, expect, it } from 'vitest';
import {
  DISCORD_LIMITS,
  discordMessage,
  NEUTRAL_COLOUR,
  RESOLVED_COLOUR,
  SEVERITY_COLOURS,
} from './discord.ts';
import { DISCORD_HOOK, hookUrlProblem } from './hook-url.rules.ts';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
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

describe('Discord notices', () => {
  it('a group: one embed, title with its labels, the headline and a line per event, coloured by the worst', () => {
    const message: Json = discordMessage(noticeContext(groupNotice(3)));
    expect(message.embeds).toHaveLength(1);
    const [embed] = message.embeds;
    expect(embed.title).toBe('Volume watch (watchdog=unusual_volume, asset=AAPL)');
    const lines = embed.description.split('\n');
    expect(lines[0]).toBe(
      '3 events: unusual_volume on AAPL, price_anomaly on MSFT, unusual_volume on BTC/USDT',
    );
    expect(lines.filter((line: string) => line.startsWith('2025-'))).toHaveLength(3);
    expect(embed.color).toBe(SEVERITY_COLOURS.high);
    expect(embed.fields).toEqual([
      { name: 'watchdog', value: 'unusual_volume', inline: true },
      { name: 'asset', value: 'AAPL', inline: true },
    ]);
    expect(embed.timestamp).toBe('2025-01-02T03:02:00.000Z');
    expect(message.content).toBe(`${embed.title}: ${lines[0]}`);
    expect((discordMessage(noticeContext(groupNotice(3, true))) as Json).embeds[0].title).toMatch(
      /^\[still firing\] /,
    );
  });

  it('a 500-event group keeps the description and 6000 limits, counting the lines left out', () => {
    const message: Json = discordMessage(noticeContext(groupNotice(500)));
    const [embed] = message.embeds;
    expect(chars(embed.description)).toBeLessThanOrEqual(DISCORD_LIMITS.description);
    expect(total(embed)).toBeLessThanOrEqual(DISCORD_LIMITS.total);
    expect(chars(message.content)).toBeLessThanOrEqual(DISCORD_LIMITS.content);
    const lines = embed.description.split('\n');
    const more = lines.at(-1);
    expect(more).toMatch(/^and \d+ more$/);
    expect(lines.filter((line: string) => line.startsWith('2025-')).length + Number(more.split(' ')[1])).toBe(
      500,
    );
  });

  it('a resolution in green and an acknowledgement in grey', () => {
    const [resolved] = (discordMessage(noticeContext(resolvedNotice)) as Json).embeds;
    expect(resolved).toMatchObject({
      title: '[RESOLVED] Volume watch',
      description: 'Resolved after 12m 30s (resolved by alice: fixed upstream)',
      color: RESOLVED_COLOUR,
      timestamp: '2025-01-02T03:12:30.000Z',
    });
    expect(resolved.fields).toContainEqual({ name: 'Resolved', value: '2025-01-02T03:12:30Z', inline: true });
    expect(resolved.fields).toContainEqual({ name: 'Incident', value: 'unusual_volume/AAPL', inline: true });
    const [acknowledged] = (discordMessage(noticeContext(acknowledgedNotice)) as Json).embeds;
    expect(acknowledged).toMatchObject({
      title: '[ACKNOWLEDGED] Volume watch',
      description: 'Acknowledged by bob: looking',
      color: NEUTRAL_COLOUR,
    });
  });
});
