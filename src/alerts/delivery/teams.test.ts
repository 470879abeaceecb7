import { describe, expect, it } from 'vitest';
import { hookUrlProblem, TEAMS_HOOK } from './hook-url.rules.ts';
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
