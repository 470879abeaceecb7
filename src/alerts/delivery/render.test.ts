import { describe, expect, it } from 'vitest';
import { alertEventOfStored } from '../alert-event.wire.ts';
import { acknowledgedNotice, groupNotice, noticeContext, resolvedNotice } from './notice.fixtures.ts';
import {
  CHAT_MAX_CHARS,
  chatText,
  EMAIL_EVENT_LINES,
  emailHtml,
  emailSubject,
  emailText,
  escapeHtml,
  escapeMarkdownV2,
  eventLines,
} from './render.ts';
import type { DeliveryContext } from './types.ts';

const hostileContext = (overrides: Partial<DeliveryContext> = {}): DeliveryContext => ({
  deliveryId: 'dlv-1',
  attempt: 1,
  notice: { kind: 'event', incidentKey: 'test/-' },
  alert: { id: 'a-1', name: 'Big <moves> & co.', description: 'Watch "it"' },
  event: {
    id: 'ev-9',
    type: 'price_anomaly',
    severity: 'high',
    description: 'Price jumped 5.2% <script>alert(1)</script> & more!',
    asset: { symbol: 'BRK.B', assetType: 'equity' },
    occurredAt: new Date('2025-01-02T03:04:05.000Z'),
    watchdog: 'price_anomaly',
    data: { z_score: 4.5, note: 'a_b*c' },
    sample: false,
  },
  now: new Date('2025-01-02T03:04:06Z'),
  signal: new AbortController().signal,
  test: false,
  ...overrides,
});

describe('escapes', () => {
  it('escapes HTML metacharacters', () => {
    expect(escapeHtml(`<a href="x">'&'</a>`)).toBe('&lt;a href=&quot;x&quot;&gt;&#39;&amp;&#39;&lt;/a&gt;');
  });

  it('escapes every MarkdownV2 reserved character, backslash included', () => {
    const special = '_*[]()~`>#+-=|{}.!\\';
    expect(escapeMarkdownV2(special)).toBe([...special].map((c) => `\\${c}`).join(''));
    expect(escapeMarkdownV2('plain text 123')).toBe('plain text 123');
  });
});

describe('email', () => {
  it('has a subject naming severity, alert and symbol, on one line', () => {
    expect(emailSubject(hostileContext())).toBe('[Vigil] HIGH: Big <moves> & co. (BRK.B)');
    const ctx = hostileContext({ test: true, alert: { id: 'a', name: 'two\r\nlines', description: null } });
    expect(emailSubject(ctx)).toBe('[Vigil test] HIGH: two lines (BRK.B)');
  });

  it('escapes every value in the HTML part', () => {
    const html = emailHtml(hostileContext());
    expect(html).not.toContain('<script>');
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt; &amp; more!');
    expect(html).toContain('<h2>Big &lt;moves&gt; &amp; co.</h2>');
    expect(html).toContain('Watch &quot;it&quot;');
  });

  it('lists the event in the text part', () => {
    const text = emailText(hostileContext());
    expect(text).toContain('Alert: Big <moves> & co.');
    expect(text).toContain('Symbol: BRK.B (equity)');
    expect(text).toContain('z_score: 4.5');
    expect(text).toContain('Time: 2025-01-02T03:04:05.000Z');
    expect(text).toContain('Event id: ev-9');
    expect(text).toContain('Delivery dlv-1');
    expect(text.startsWith('Alert:')).toBe(true);
    expect(emailText(hostileContext({ test: true }))).toMatch(/^This is a test message/);
  });
});

describe('eventLines', () => {
  it('bounds the data shown and keeps each value on one line', () => {
    const data = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, `v\n${i}`]));
    const lines = eventLines(hostileContext({ event: { ...hostileContext().event, data, asset: null } }));
    expect(lines.filter(([label]) => label.startsWith('k'))).toHaveLength(20);
    expect(lines.find(([label]) => label === 'k3')?.[1]).toBe('v 3');
    expect(lines.some(([label]) => label === 'Symbol')).toBe(false);
  });

  it('renders an event stored without data', () => {
    // Firings stored before events carried `data` hold none.
    const event = alertEventOfStored({
      event_id: 'ev-9',
      type: 'price_anomaly',
      severity: 'high',
      description: 'Price jumped',
      asset: { symbol: 'BRK.B', asset_type: 'equity' },
      timestamp: '2025-01-02T03:04:05.000Z',
      watchdog: 'price_anomaly',
    });
    expect(eventLines(hostileContext({ event })).map(([label]) => label)).toEqual([
      'Severity',
      'Type',
      'Symbol',
      'Watchdog',
      'Time',
      'Event id',
    ]);
  });
});

describe('chatText', () => {
  it('leaves no reserved character unescaped outside its own markup', () => {
    const text = chatText(hostileContext());
    // Remove escaped pairs and the renderer's own bold markers; nothing reserved may remain.
    const bare = text.replace(/\\./g, '').replace(/^\*[^*\n]*\* · \*[^*\n]*\*$/m, '');
    expect(bare).not.toMatch(/[_*[\]()~`>#+\-=|{}.!\\]/);
    expect(text).toContain('Price jumped 5\\.2% <script\\>alert\\(1\\)</script\\> & more\\!');
    expect(text).toContain('*HIGH* · *Big <moves\\> & co\\.*');
  });

  it('marks a test message in italics', () => {
    expect(chatText(hostileContext({ test: true }))).toMatch(/^_Test message: the alert did not fire\\._\n/);
  });
});

describe('notices', () => {
  it('an email about a group: subject with the worst severity and labels, the headline, one line per event', () => {
    const ctx = noticeContext(groupNotice(5));
    expect(emailSubject(ctx)).toBe(
      '[Vigil] HIGH: Volume watch (watchdog=unusual_volume, asset=AAPL): 5 events',
    );
    expect(emailSubject(noticeContext(groupNotice(5, true)))).toMatch(
      /^\[Vigil\] STILL FIRING: Volume watch/,
    );
    const text = emailText(ctx);
    expect(text).toContain(
      '5 events: unusual_volume on AAPL, price_anomaly on MSFT, unusual_volume on BTC/USDT, …',
    );
    expect(text).toContain('2025-01-02T03:00:00Z LOW unusual_volume AAPL: Volume <0x> & *more*');
    expect(text.split('\n').filter((line) => line.startsWith('2025-'))).toHaveLength(5);
    const html = emailHtml(ctx);
    expect(html).toContain('<h2>Volume watch (watchdog=unusual_volume, asset=AAPL)</h2>');
    expect(html).toContain('<li>2025-01-02T03:04:00Z MEDIUM unusual_volume MSFT: Volume &lt;4x&gt; &amp;');
    expect(html).not.toContain('<4x>');
  });

  it('an email of a 500-event group lists 200 and counts the rest', () => {
    const ctx = noticeContext(groupNotice(500));
    const text = emailText(ctx);
    expect(text.split('\n').filter((line) => line.startsWith('2025-'))).toHaveLength(EMAIL_EVENT_LINES);
    expect(text).toContain('\nand 300 more\n');
    expect(emailHtml(ctx).match(/<li>/g)).toHaveLength(EMAIL_EVENT_LINES + 1);
  });

  it('an email about a resolution and an acknowledgement', () => {
    const resolved = noticeContext(resolvedNotice);
    expect(emailSubject(resolved)).toBe('[Vigil] RESOLVED: Volume watch');
    const text = emailText(resolved);
    expect(text).toContain('Resolved after 12m 30s (resolved by alice: fixed upstream)');
    expect(text).toContain('Started: 2025-01-02T03:00:00Z');
    expect(text).toContain('Resolved: 2025-01-02T03:12:30Z');
    expect(text).toContain('Incident: unusual_volume/AAPL');
    expect(emailHtml(resolved)).toContain('<h2>[RESOLVED] Volume watch</h2>');
    const acknowledged = noticeContext(acknowledgedNotice);
    expect(emailSubject(acknowledged)).toBe('[Vigil] ACKNOWLEDGED: Volume watch');
    expect(emailText(acknowledged)).toContain('Acknowledged by bob: looking');
  });

  it('a chat message about a group stays within 4096 characters, whole lines only, escaped', () => {
    const text = chatText(noticeContext(groupNotice(500)));
    expect(text.length).toBeLessThanOrEqual(CHAT_MAX_CHARS);
    expect(text).toMatch(/\nand \d+ more$/);
    expect(text.startsWith('*HIGH* · *Volume watch \\(watchdog\\=unusual\\_volume, asset\\=AAPL\\)*\n')).toBe(
      true,
    );
    const bare = text.replace(/\\./g, '').replace(/^\*[^*\n]*\* · \*[^*\n]*\*$/m, '');
    expect(bare).not.toMatch(/[_*[\]()~`>#+\-=|{}.!\\]/);
    const small = chatText(noticeContext(groupNotice(3)));
    expect(small.split('\n').filter((line) => line.startsWith('2025'))).toHaveLength(3);
    expect(small).not.toMatch(/and \d+ more/);
  });

  it('a chat message about a resolution or an acknowledgement', () => {
    const resolved = chatText(noticeContext(resolvedNotice));
    expect(resolved).toContain('*RESOLVED* · *Volume watch*');
    expect(resolved).toContain('Resolved after 12m 30s \\(resolved by alice: fixed upstream\\)');
    expect(chatText(noticeContext(acknowledgedNotice))).toContain('Acknowledged by bob: looking');
  });

  it("keeps an event's chat message within 4096 characters too", () => {
    const data = Object.fromEntries(Array.from({ length: 20 }, (_, i) => [`k${i}`, '.'.repeat(300)]));
    const text = chatText(hostileContext({ event: { ...hostileContext().event, data } }));
    expect(text.length).toBeLessThanOrEqual(CHAT_MAX_CHARS);
    expect(text).toMatch(/\nand \d+ more$/);
  });
});
