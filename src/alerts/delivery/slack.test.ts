import { describe, expect, it } from 'vitest';
import { hookUrlProblem, SLACK_HOOK } from './hook-url.rules.ts';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
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

const chars = (text: string) => [...text].length;

/** Every limit of SLACK_LIMITS that `message` must keep; the problems found. */
function overLimits(message: Json): string[] {
  const problems: string[] = [];
  if (message.blocks.length > SLACK_LIMITS.blocks) problems.push('blocks');
  if (chars(message.text) > SLACK_LIMITS.text) problems.push('text');
  for (const block of message.blocks) {
    if (block.type === 'header' && chars(block.text.text) > SLACK_LIMITS.headerText) problems.push('header');
    if (block.type === 'section' && chars(block.text.text) > SLACK_LIMITS.sectionText)
      problems.push('section');
    if ((block.fields ?? []).length > SLACK_LIMITS.fields) problems.push('fields');
    for (const f of block.fields ?? []) if (chars(f.text) > SLACK_LIMITS.fieldText) problems.push('field');
    for (const e of block.elements ?? [])
      if (chars(e.text) > SLACK_LIMITS.contextText) problems.push('context');
  }
  return problems;
}

describe('Slack notices', () => {
  it("a group: title with its labels, the headline with the labels as fields, a section of the events' lines", () => {
    const message: Json = slackMessage(noticeContext(groupNotice(3)));
    expect(message.blocks.map((b: Json) => b.type)).toEqual(['header', 'section', 'section', 'context']);
    expect(message.blocks[0].text.text).toBe('Volume watch (watchdog=unusual_volume, asset=AAPL)');
    expect(message.blocks[1].text.text).toBe(
      '3 events: unusual_volume on AAPL, price_anomaly on MSFT, unusual_volume on BTC/USDT',
    );
    expect(message.blocks[1].fields).toEqual([
      { type: 'mrkdwn', text: '*watchdog*\nunusual_volume' },
      { type: 'mrkdwn', text: '*asset*\nAAPL' },
    ]);
    const lines = message.blocks[2].text.text.split('\n');
    expect(lines).toHaveLength(3);
    expect(lines[0]).toMatch(
      /^2025-01-02T03:00:00Z LOW unusual_volume AAPL: Volume &lt;0x&gt; &amp; \*more\*/,
    );
    expect(message.text).toBe(`${message.blocks[0].text.text}: ${message.blocks[1].text.text}`);
    const reminder: Json = slackMessage(noticeContext(groupNotice(3, true)));
    expect(reminder.blocks[0].text.text).toMatch(/^\[still firing\] Volume watch/);
    expect(reminder.blocks[1].text.text).toMatch(/^Still firing: 3 events/);
  });

  it('a group by nothing has no fields (Slack refuses an empty list)', () => {
    const message: Json = slackMessage(noticeContext({ ...groupNotice(2), labels: {} }));
    expect(message.blocks[1].fields).toBeUndefined();
    expect(message.blocks[0].text.text).toBe('Volume watch');
  });

  it('a 500-event group keeps every Slack limit, the last line counting what was left out', () => {
    const message: Json = slackMessage(noticeContext(groupNotice(500)));
    expect(overLimits(message)).toEqual([]);
    const sections = message.blocks.filter((b: Json) => b.type === 'section').slice(1);
    expect(sections).toHaveLength(SLACK_LIMITS.eventSections);
    const lines = sections.flatMap((b: Json) => b.text.text.split('\n'));
    const more = lines.at(-1);
    expect(more).toMatch(/^and \d+ more$/);
    expect(lines.length - 1 + Number(more.split(' ')[1])).toBe(500);
  });

  it('a resolution and an acknowledgement', () => {
    const resolved: Json = slackMessage(noticeContext(resolvedNotice));
    expect(resolved.blocks[0].text.text).toBe('[RESOLVED] Volume watch');
    expect(resolved.blocks[1].text.text).toBe('Resolved after 12m 30s (resolved by alice: fixed upstream)');
    expect(resolved.blocks[1].fields).toContainEqual({
      type: 'mrkdwn',
      text: '*Started*\n2025-01-02T03:00:00Z',
    });
    expect(resolved.blocks[1].fields).toContainEqual({ type: 'mrkdwn', text: '*Duration*\n12m 30s' });
    expect(resolved.text).toBe(
      '[RESOLVED] Volume watch: Resolved after 12m 30s (resolved by alice: fixed upstream)',
    );
    const acknowledged: Json = slackMessage(noticeContext(acknowledgedNotice));
    expect(acknowledged.blocks[0].text.text).toBe('[ACKNOWLEDGED] Volume watch');
    expect(acknowledged.blocks[1].text.text).toBe('Acknowledged by bob: looking');
    expect(overLimits(acknowledged)).toEqual([]);
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
