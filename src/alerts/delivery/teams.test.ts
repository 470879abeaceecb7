import { describe, expect, it } from 'vitest';
import { hookUrlProblem, TEAMS_HOOK } from './hook-url.rules.ts';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
import { NO_ALLOWED_HOSTS } from './ssrf.ts';
import { TEAMS_LIMITS, teamsMessage } from './teams.ts';
import type { DeliveryContext } from './types.ts';

const ctx = (description: string): DeliveryContext => ({
  deliveryId: 'dlv-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'a-1', name: 'BTC crash', description: null },
  event: {
    id: 'ev-1',
    type: 'flash_crash',
    severity: 'critical',
    description,
    asset: { symbol: 'BTC/USDT', assetType: 'crypto' },
    occurredAt: new Date('2025-01-02T03:04:05Z'),
    watchdog: 'price_anomaly',
    data: { change: -0.12 },
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
});

// biome-ignore lint/suspicious/noExplicitAny: the payload is checked by the expectations.
type Json = any;

describe('Teams message', () => {
  it('is an Adaptive Card in the message envelope: title, description, facts, context', () => {
    const message: Json = teamsMessage(ctx('fell 12%'));
    expect(message.type).toBe('message');
    const [attachment] = message.attachments;
    expect(attachment.contentType).toBe('application/vnd.microsoft.card.adaptive');
    const { content } = attachment;
    expect(content).toMatchObject({ type: 'AdaptiveCard', version: '1.4' });
    expect(content.body.map((b: Json) => b.type)).toEqual(['TextBlock', 'TextBlock', 'FactSet', 'TextBlock']);
    expect(content.body[0]).toMatchObject({ text: 'BTC crash', color: 'Attention', weight: 'Bolder' });
    expect(content.body[1].text).toBe('fell 12%');
    expect(content.body[2].facts).toContainEqual({ title: 'Asset', value: 'BTC/USDT' });
  });

  it('stays within 27 KB, cutting the description with an ellipsis, multi-byte text included', () => {
    for (const unit of ['x', 'é', '😀', '"']) {
      const message: Json = teamsMessage(ctx(unit.repeat(40_000)));
      expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThanOrEqual(TEAMS_LIMITS.bytes);
      const text: string = message.attachments[0].content.body[1].text;
      expect(text.endsWith('…')).toBe(true);
      expect(Buffer.byteLength(JSON.stringify(message))).toBeGreaterThan(TEAMS_LIMITS.bytes - 200);
    }
  });

  it('accepts Teams connector and Workflows URLs only, unless the host is allowed', () => {
    expect(
      hookUrlProblem('https://acme.webhook.office.com/webhookb2/x', TEAMS_HOOK, NO_ALLOWED_HOSTS),
    ).toBeNull();
    const flow = 'https://prod-07.westeurope.logic.azure.com:443/workflows/abc/triggers/manual/paths/invoke';
    expect(hookUrlProblem(flow, TEAMS_HOOK, NO_ALLOWED_HOSTS)).toBeNull();
    expect(hookUrlProblem('https://webhook.office.com.evil.example/x', TEAMS_HOOK, NO_ALLOWED_HOSTS)).toMatch(
      /Microsoft Teams/,
    );
  });
});

describe('Teams notices', () => {
  const body = (message: Json) => message.attachments[0].content.body;

  it('a group: title with its labels in the worst severity, the headline, its labels, a line per event', () => {
    const card = body(teamsMessage(noticeContext(groupNotice(3))));
    expect(card.map((b: Json) => b.type)).toEqual([
      'TextBlock',
      'TextBlock',
      'FactSet',
      'TextBlock',
      'TextBlock',
    ]);
    expect(card[0]).toMatchObject({
      text: 'Volume watch (watchdog=unusual_volume, asset=AAPL)',
      color: 'Attention',
    });
    expect(card[1].text).toBe(
      '3 events: unusual_volume on AAPL, price_anomaly on MSFT, unusual_volume on BTC/USDT',
    );
    expect(card[2].facts).toEqual([
      { title: 'watchdog', value: 'unusual_volume' },
      { title: 'asset', value: 'AAPL' },
    ]);
    expect(card[3].text.split('\n\n')).toHaveLength(3);
    expect(body(teamsMessage(noticeContext(groupNotice(3, true))))[0].text).toMatch(/^\[still firing\] /);
    // A group by nothing: no empty FactSet.
    const plain = body(teamsMessage(noticeContext({ ...groupNotice(3), labels: {} })));
    expect(plain.map((b: Json) => b.type)).not.toContain('FactSet');
  });

  it('a 500-event group stays within 27 KB, counting the lines left out', () => {
    const message: Json = teamsMessage(noticeContext(groupNotice(500)));
    expect(Buffer.byteLength(JSON.stringify(message))).toBeLessThanOrEqual(TEAMS_LIMITS.bytes);
    const lines = body(message)[3].text.split('\n\n');
    const more = lines.at(-1);
    expect(more).toMatch(/^and \d+ more$/);
    expect(lines.length - 1 + Number(more.split(' ')[1])).toBe(500);
    expect(lines.length).toBeGreaterThan(20);
  });

  it("a resolution in green, an acknowledgement in the card's default colour", () => {
    const resolved = body(teamsMessage(noticeContext(resolvedNotice)));
    expect(resolved[0]).toMatchObject({ text: '[RESOLVED] Volume watch', color: 'Good' });
    expect(resolved[1].text).toBe('Resolved after 12m 30s (resolved by alice: fixed upstream)');
    expect(resolved[2].facts).toContainEqual({ title: 'Started', value: '2025-01-02T03:00:00Z' });
    const acknowledged = body(teamsMessage(noticeContext(acknowledgedNotice)));
    expect(acknowledged[0]).toMatchObject({ text: '[ACKNOWLEDGED] Volume watch', color: 'Default' });
    expect(acknowledged[1].text).toBe('Acknowledged by bob: looking');
  });
});
