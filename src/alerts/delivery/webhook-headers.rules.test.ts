import { describe, expect, it } from 'vitest';
import type { DeliveryContext } from './types.ts';
import { webhookHeaders } from './webhook.ts';
import { headerProblem, unsendableHeader } from './webhook-headers.rules.ts';

describe('webhook headers', () => {
  it.each([
    'Connection',
    'Keep-Alive',
    'Upgrade',
    'Expect',
    'Transfer-Encoding',
    'Host',
    'Content-Length',
    'TE',
    'Trailer',
    'Proxy-Authorization',
    'Proxy-Connection',
  ])('refuses the connection header %s in any case', (name) => {
    expect(unsendableHeader(name, 'x')).toMatch(/managed by the HTTP connection/);
    expect(unsendableHeader(name.toLowerCase(), 'x')).toMatch(/managed by the HTTP connection/);
  });

  it("refuses Vigil's own headers", () => {
    expect(unsendableHeader('Content-Type', 'text/plain')).toBe('is set by Vigil');
    expect(unsendableHeader('X-Vigil-Signature', 'x')).toBe('is set by Vigil');
    expect(headerProblem('authorization', 'Bearer x')).toBe('is set by Vigil: use auth_token');
    // The sender judges Authorization itself (a row may hold one from before the auth token).
    expect(unsendableHeader('Authorization', 'Bearer x')).toBeNull();
  });

  it.each(['é', '\u00a0', '\u0000', '\r', '\n', '\u001b[31m', '\u007f', '😀'])(
    'refuses a value holding %j',
    (bad) => {
      expect(unsendableHeader('X-Team', `a${bad}b`)).toMatch(/printable ASCII/);
    },
  );

  it('accepts names that are tokens and printable ASCII values with spaces and tabs', () => {
    expect(headerProblem('X-Team', 'desk 1\tops ~!"#')).toBeNull();
    expect(headerProblem("x-a!#$%&'*+.^_`|~", '')).toBeNull();
    expect(headerProblem('Bad Name', 'x')).toMatch(/not a header name/);
    expect(headerProblem('', 'x')).toMatch(/not a header name/);
    expect(headerProblem('x'.repeat(65), 'x')).toMatch(/not a header name/);
  });
});

describe('the webhook sender', () => {
  it('skips headers stored before the rule that no client would send', () => {
    const ctx = { deliveryId: 'd-1', now: new Date('2025-01-01T00:00:00Z') } as DeliveryContext;
    const headers = webhookHeaders(
      {
        url: 'https://hooks.example.com/in',
        method: 'POST',
        headers: {
          'X-Team': 'ops',
          Expect: '100-continue',
          'Keep-Alive': 'timeout=5',
          Upgrade: 'h2c',
          TE: 'trailers',
          'Proxy-Authorization': 'Basic x',
          'X-Accent': 'café',
          'X-Bell': 'a\u0007b',
        },
      },
      ctx,
      '{}',
    );
    expect(Object.keys(headers).sort()).toEqual(
      ['content-type', 'user-agent', 'x-team', 'x-vigil-delivery', 'x-vigil-timestamp'].sort(),
    );
  });
});
