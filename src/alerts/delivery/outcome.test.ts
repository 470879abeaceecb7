import { describe, expect, it } from 'vitest';
import {
  destinationSignal,
  httpOutcome,
  networkReason,
  parseRetryAfter,
  redact,
  redactOutcome,
} from './outcome.ts';

const now = new Date('2025-01-02T03:04:05Z');

describe('parseRetryAfter', () => {
  it('reads delta-seconds', () => {
    expect(parseRetryAfter('7', now)).toBe(7_000);
    expect(parseRetryAfter(['0'], now)).toBe(0);
  });

  it('reads an HTTP date relative to now, a past one as 0', () => {
    expect(parseRetryAfter('Thu, 02 Jan 2025 03:05:05 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:00 GMT', now)).toBe(0);
  });

  it('ignores what it cannot read', () => {
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter('-5', now)).toBeUndefined();
    expect(parseRetryAfter('1.5', now)).toBeUndefined();
  });
});

describe('httpOutcome', () => {
  it.each([
    [200, 'delivered'],
    [204, 'delivered'],
    [408, 'retry'],
    [429, 'retry'],
    [500, 'retry'],
    [503, 'retry'],
    [400, 'failed'],
    [401, 'failed'],
    [404, 'failed'],
    [302, 'failed'],
  ])('HTTP %i is %s', (code, status) => {
    expect(httpOutcome(code, 5, 'the receiver')).toMatchObject({ status, responseCode: code, latencyMs: 5 });
  });

  it('carries Retry-After on a retry only', () => {
    expect(httpOutcome(429, 1, 'x', 3_000)).toMatchObject({ status: 'retry', retryAfterMs: 3_000 });
    expect(httpOutcome(400, 1, 'x', 3_000)).not.toHaveProperty('retryAfterMs');
    expect(httpOutcome(503, 1, 'the receiver at a.example')).toMatchObject({
      error: 'the receiver at a.example answered HTTP 503',
    });
  });
});

describe('redact', () => {
  it('removes every secret, raw and URL-encoded', () => {
    const token = '123:AB/c+d';
    const text = `POST /bot${encodeURIComponent(token)}/sendMessage failed; token ${token}`;
    expect(redact(text, [token, undefined])).toBe('POST /bot[redacted]/sendMessage failed; token [redacted]');
  });

  it('bounds the length', () => {
    expect(redact('x'.repeat(2_000), [])).toHaveLength(501);
  });

  it('redacts outcome errors and details', () => {
    expect(
      redactOutcome({ status: 'failed', responseCode: 535, latencyMs: 1, error: 'bad pw hunter2' }, [
        'hunter2',
      ]),
    ).toMatchObject({ error: 'bad pw [redacted]' });
    expect(
      redactOutcome({ status: 'delivered', responseCode: 250, latencyMs: 1, detail: 'hunter2' }, ['hunter2']),
    ).toMatchObject({ detail: '[redacted]' });
  });
});

describe('networkReason', () => {
  it('names the code from the cause', () => {
    const error = Object.assign(new Error('fetch failed'), {
      cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' }),
    });
    expect(networkReason(error)).toBe('connect ECONNREFUSED 127.0.0.1:9');
    expect(networkReason(Object.assign(new Error('socket hang up'), { code: 'UND_ERR_SOCKET' }))).toBe(
      'UND_ERR_SOCKET: socket hang up',
    );
    expect(networkReason(new DOMException('This operation was aborted', 'AbortError'))).toBe(
      'timed out or aborted',
    );
  });
});

describe('destinationSignal', () => {
  const retry = (code: number | null) => ({
    status: 'retry' as const,
    responseCode: code,
    latencyMs: 1,
    error: 'x',
  });
  it('counts silence and "not now" answers as failures of the destination', () => {
    expect(destinationSignal('webhook', retry(null))).toBe('failed');
    expect(destinationSignal('webhook', retry(503))).toBe('failed');
    expect(destinationSignal('chat', retry(429))).toBe('failed');
    expect(destinationSignal('email', retry(421))).toBe('failed');
  });
  it('counts any other answer, a refusal too, as the destination answering', () => {
    expect(destinationSignal('webhook', { status: 'delivered', responseCode: 200, latencyMs: 1 })).toBe(
      'answered',
    );
    expect(
      destinationSignal('webhook', { status: 'failed', responseCode: 404, latencyMs: 1, error: 'x' }),
    ).toBe('answered');
    // A greylisted recipient says nothing bad of the server.
    expect(destinationSignal('email', retry(450))).toBe('answered');
  });
  it('says nothing when nothing reached the destination', () => {
    expect(
      destinationSignal('webhook', { status: 'failed', responseCode: null, latencyMs: 0, error: 'refused' }),
    ).toBe('none');
    expect(destinationSignal('email', { ...retry(null), notSent: true })).toBe('none');
  });
});
