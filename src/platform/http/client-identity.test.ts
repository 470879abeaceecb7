import type { IncomingMessage } from 'node:http';
import { describe, expect, it } from 'vitest';
import { anonymousPrincipal, effectiveScopes, type Principal } from '../access/principal.ts';
import { forwardedClient, identifyClient, limitKey, normalizeAddress, viewerOf } from './client-identity.ts';

const headers = (values: Record<string, string>) => ({ get: (name: string) => values[name] });
const from = (address: string) => ({ socket: { remoteAddress: address } }) as unknown as IncomingMessage;

describe('identifyClient', () => {
  it('identifies by address: a presented key is not an identity until it is verified', () => {
    const a = identifyClient(headers({ 'x-api-key': 'invented-1' }), from('203.0.113.9'), 0);
    const b = identifyClient(headers({ 'x-api-key': 'invented-2' }), from('203.0.113.9'), 0);
    expect(a.clientId).toBe('ip:203.0.113.9');
    expect(b.clientId).toBe(a.clientId);
    expect(JSON.stringify(a)).not.toContain('invented');
  });

  it('counts a verified key under the key, wherever it calls from', () => {
    const key: Principal = { kind: 'key', id: 'k1', name: 'ci', scopes: effectiveScopes(['read']) };
    const here = viewerOf(identifyClient(headers({}), from('203.0.113.9'), 0), key);
    const there = viewerOf(identifyClient(headers({}), from('198.51.100.1'), 0), key);
    expect(here.clientId).toBe('key:k1');
    expect(there.clientId).toBe(here.clientId);
    const anonymous = anonymousPrincipal(true);
    expect(viewerOf(identifyClient(headers({}), from('203.0.113.9'), 0), anonymous).clientId).toBe(
      'ip:203.0.113.9',
    );
  });

  it('ignores X-Forwarded-For unless proxies are trusted', () => {
    const viewer = identifyClient(headers({ 'x-forwarded-for': '198.51.100.1' }), from('10.0.0.1'), 0);
    expect(viewer.remoteAddress).toBe('10.0.0.1');
  });

  it('takes the address the outermost trusted proxy saw, not what the client wrote', () => {
    const chain = headers({ 'x-forwarded-for': '6.6.6.6, 198.51.100.7, 10.0.0.2' });
    expect(identifyClient(chain, from('10.0.0.3'), 1).remoteAddress).toBe('10.0.0.2');
    expect(identifyClient(chain, from('10.0.0.3'), 2).remoteAddress).toBe('198.51.100.7');
  });

  it('falls back to the socket address when the entry is not an address', () => {
    const viewer = identifyClient(headers({ 'x-forwarded-for': 'unknown' }), from('10.0.0.4'), 1);
    expect(viewer.remoteAddress).toBe('10.0.0.4');
    expect(identifyClient(headers({}), from('::ffff:10.0.0.5'), 1).clientId).toBe('ip:10.0.0.5');
  });
});

describe('forwardedClient', () => {
  it('counts hops from the right and takes the leftmost entry when there are fewer', () => {
    expect(forwardedClient('1.1.1.1, 2.2.2.2, 3.3.3.3', 1)).toBe('3.3.3.3');
    expect(forwardedClient('1.1.1.1, 2.2.2.2, 3.3.3.3', 3)).toBe('1.1.1.1');
    expect(forwardedClient('2.2.2.2', 2)).toBe('2.2.2.2');
    expect(forwardedClient(undefined, 1)).toBeUndefined();
  });
});

describe('normalizeAddress', () => {
  it('accepts IP addresses in their usual spellings only', () => {
    expect(normalizeAddress(' 203.0.113.1 ')).toBe('203.0.113.1');
    expect(normalizeAddress('203.0.113.1:8080')).toBe('203.0.113.1');
    expect(normalizeAddress('[2001:DB8::1]:443')).toBe('2001:db8::1');
    expect(normalizeAddress('::ffff:203.0.113.1')).toBe('203.0.113.1');
    for (const junk of ['unknown', '', 'example.com', '999.1.1.1', '1.2.3.4.5', '<script>'])
      expect(normalizeAddress(junk)).toBeUndefined();
  });
});

describe('limitKey', () => {
  it('groups an IPv6 client by its /64 and keeps IPv4 as is', () => {
    expect(limitKey('203.0.113.1')).toBe('203.0.113.1');
    expect(limitKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8:1:2:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(limitKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(limitKey('::1')).toBe('0:0:0:0::/64');
  });
});
