import { describe, expect, it } from 'vitest';
import { hookUrlProblem, SLACK_HOOK } from './hook-url.rules.ts';
import { clip, SLACK_LIMITS, slackMessage } from './slack.ts';
import { NO_ALLOWED_HOSTS, parseAllowedHosts } from './ssrf.ts';
import type { DeliveryContext } from './types.ts';

const ctx = (description: string, data: Record<string, unknown> = {}): DeliveryContext => ({
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
    data,
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
});

// biome-ignore lint/suspicious/noExplicitAny: the payload is checked by the expectations.
type Json = any;

describe('Slack message', () => {
  it('is a header, a section with the event as fields, and a context line', () => {
    const message: Json = slackMessage(ctx('fell <12%> & more', { change: -0.12 }));
    expect(message.blocks.map((b: Json) => b.type)).toEqual(['header', 'section', 'context']);
    expect(message.blocks[0].text).toEqual({ type: 'plain_text', text: 'BTC crash', emoji: true });
    // Slack's control characters are escaped in mrkdwn.
    expect(message.blocks[1].text).toEqual({ type: 'mrkdwn', text: 'fell &lt;12%&gt; &amp; more' });
    expect(message.blocks[1].fields).toContainEqual({ type: 'mrkdwn', text: '*Severity*\ncritical' });
    expect(message.blocks[1].fields).toContainEqual({ type: 'mrkdwn', text: '*change*\n-0.12' });
    expect(message.blocks[2].elements[0].text).toContain('dlv-1');
    expect(message.text).toBe('BTC crash (critical): fell <12%> & more');
  });

  it('keeps every Slack limit, cutting with an ellipsis', () => {
    const data = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, 'v'.repeat(3_000)]));
    const message: Json = slackMessage(ctx('d'.repeat(10_000), data));
    const section = message.blocks[1];
    expect([...section.text.text]).toHaveLength(SLACK_LIMITS.sectionText);
    expect(section.text.text.endsWith('…')).toBe(true);
    expect(section.fields).toHaveLength(SLACK_LIMITS.fields);
    for (const field of section.fields)
      expect([...field.text].length).toBeLessThanOrEqual(SLACK_LIMITS.fieldText);
    expect([...message.text].length).toBeLessThanOrEqual(SLACK_LIMITS.text);
  });

  it('clips by characters, not UTF-16 units', () => {
    expect(clip('😀😀😀', 2)).toBe('😀…');
    expect(clip('abc', 3)).toBe('abc');
  });
});

describe('Slack webhook URL', () => {
  it("accepts Slack's hooks and allowed hosts, and names what is expected otherwise", () => {
    expect(
      hookUrlProblem('https://hooks.slack.com/services/T0/B0/x', SLACK_HOOK, NO_ALLOWED_HOSTS),
    ).toBeNull();
    expect(hookUrlProblem('http://hooks.slack.com/services/T0/B0/x', SLACK_HOOK, NO_ALLOWED_HOSTS)).toMatch(
      /https/,
    );
    expect(hookUrlProblem('https://evil.example.com/services/x', SLACK_HOOK, NO_ALLOWED_HOSTS)).toMatch(
      /Slack incoming webhook URL \(https:\/\/hooks\.slack\.com\/services\/\.\.\.\)/,
    );
    expect(hookUrlProblem('https://hooks.slack.com/other', SLACK_HOOK, NO_ALLOWED_HOSTS)).not.toBeNull();
    const loopback = parseAllowedHosts(['127.0.0.1', 'relay.internal']);
    expect(hookUrlProblem('http://127.0.0.1:9/x', SLACK_HOOK, loopback)).toBeNull();
    expect(hookUrlProblem('http://relay.internal/x', SLACK_HOOK, loopback)).toBeNull();
    expect(hookUrlProblem('http://127.0.0.2/x', SLACK_HOOK, loopback)).not.toBeNull();
  });
});
