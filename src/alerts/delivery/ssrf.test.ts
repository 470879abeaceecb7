import { describe, expect, it } from 'vitest';
import { inCidr, parseCidr, parseIp } from './ip-address.ts';
import {
  createDeliveryGuard,
  NO_ALLOWED_HOSTS,
  parseAllowedHosts,
  ResolveFailure,
  type Resolver,
  refusalReason,
  SsrfRefusal,
} from './ssrf.ts';

describe('refusalReason', () => {
  it.each([
    ['127.0.0.1', 'a loopback address'],
    ['127.255.0.9', 'a loopback address'],
    ['10.0.0.1', 'a private address'],
    ['172.16.0.1', 'a private address'],
    ['172.31.255.255', 'a private address'],
    ['192.168.1.1', 'a private address'],
    ['169.254.169.254', 'a cloud metadata address'],
    ['169.254.1.1', 'a link-local address'],
    ['100.64.0.1', 'a shared (CGNAT) address'],
    ['100.127.255.255', 'a shared (CGNAT) address'],
    ['0.0.0.0', 'an unspecified address'],
    ['224.0.0.1', 'a multicast address'],
    ['255.255.255.255', 'a broadcast address'],
    ['240.0.0.1', 'a reserved address'],
    ['::1', 'a loopback address'],
    ['[::1]', 'a loopback address'],
    ['::', 'an unspecified address'],
    ['fc00::1', 'a private address'],
    ['fd12:3456::1', 'a private address'],
    ['fe80::1%eth0', 'a link-local address'],
    ['ff02::1', 'a multicast address'],
    ['fd00:ec2::254', 'a cloud metadata address'],
    ['::ffff:127.0.0.1', 'a loopback address'],
    ['[::ffff:127.0.0.1]', 'a loopback address'],
    ['::ffff:7f00:1', 'a loopback address'],
    ['0:0:0:0:0:ffff:a00:1', 'a private address'],
    ['::ffff:169.254.169.254', 'a cloud metadata address'],
    ['64:ff9b::10.0.0.1', 'a private address'],
    ['2002:7f00:1::', 'a loopback address'],
    ['::127.0.0.1', 'a reserved address'],
    ['2001:db8::1', 'a reserved (documentation) address'],
  ])('refuses %s as %s', (address, reason) => {
    expect(refusalReason(address)).toBe(reason);
  });

  it.each(['8.8.8.8', '1.1.1.1', '172.32.0.1', '100.128.0.1', '2606:4700:4700::1111', '::ffff:8.8.8.8'])(
    'accepts the public address %s',
    (address) => {
      expect(refusalReason(address)).toBeNull();
    },
  );

  it('refuses what is not an address', () => {
    expect(refusalReason('example.com')).toBe('not an IP address');
  });
});

describe('ip-address', () => {
  it('reads every spelling of one IPv6 address as one value', () => {
    const a = parseIp('::ffff:127.0.0.1');
    expect(parseIp('0:0:0:0:0:ffff:7f00:0001')).toEqual(a);
    expect(parseIp('[::FFFF:7F00:1]')).toEqual(a);
  });

  it('parses CIDR blocks and rejects bad prefixes', () => {
    const block = parseCidr('10.1.0.0/16');
    expect(block).not.toBeNull();
    expect(block && inCidr(parseIp('10.1.200.3') ?? { version: 4, value: 0n }, block)).toBe(true);
    expect(block && inCidr(parseIp('10.2.0.1') ?? { version: 4, value: 0n }, block)).toBe(false);
    expect(parseCidr('10.0.0.0/33')).toBeNull();
    expect(parseCidr('10.0.0.0/x')).toBeNull();
    expect(parseCidr('::/0')).toEqual({ version: 6, base: 0n, prefix: 0 });
  });
});

describe('parseAllowedHosts', () => {
  it('reads host names, addresses and blocks, ignoring blanks', () => {
    const allowed = parseAllowedHosts([' Relay.Internal. ', '127.0.0.1', '[::1]', '10.0.0.0/8', '']);
    expect([...allowed.hosts]).toEqual(['relay.internal']);
    expect(allowed.blocks).toHaveLength(3);
  });

  it('names an entry it cannot read', () => {
    expect(() => parseAllowedHosts(['ok.example', 'http://x/'])).toThrow(/"http:\/\/x\/" is not a host name/);
    expect(() => parseAllowedHosts(['10.0.0.0/40'])).toThrow(/10\.0\.0\.0\/40/);
  });
});

const resolverOf =
  (table: Record<string, string[]>): Resolver =>
  async (host) => {
    const found = table[host];
    if (!found) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    return found.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }));
  };

describe('createDeliveryGuard', () => {
  const resolver = resolverOf({
    'hooks.example': ['93.184.216.34'],
    'internal.example': ['10.0.0.7'],
    'mixed.example': ['93.184.216.34', 'fd00::5'],
    'relay.internal': ['10.9.9.9'],
  });

  it('pins a public host to its resolved addresses', async () => {
    const guard = createDeliveryGuard(NO_ALLOWED_HOSTS, resolver);
    await expect(guard.check('hooks.example')).resolves.toEqual({
      host: 'hooks.example',
      addresses: [{ address: '93.184.216.34', family: 4 }],
    });
  });

  it.each([
    ['127.0.0.1', 'refused: 127.0.0.1 is a loopback address'],
    ['10.0.0.1', 'refused: 10.0.0.1 is a private address'],
    ['169.254.169.254', 'refused: 169.254.169.254 is a cloud metadata address'],
    ['[::1]', 'refused: ::1 is a loopback address'],
    ['[::ffff:127.0.0.1]', 'refused: ::ffff:127.0.0.1 is a loopback address'],
    ['internal.example', 'refused: internal.example resolves to 10.0.0.7, a private address'],
    ['mixed.example', 'refused: mixed.example resolves to fd00::5, a private address'],
  ])('refuses %s', async (host, message) => {
    const guard = createDeliveryGuard(NO_ALLOWED_HOSTS, resolver);
    const refusal = await guard.check(host).catch((e: unknown) => e);
    expect(refusal).toBeInstanceOf(SsrfRefusal);
    expect((refusal as Error).message).toBe(message);
  });

  it('lets allow-listed names, addresses and blocks through, still pinned', async () => {
    const guard = createDeliveryGuard(
      parseAllowedHosts(['relay.internal', '127.0.0.1', '10.0.0.0/24']),
      resolver,
    );
    await expect(guard.check('relay.internal')).resolves.toMatchObject({
      addresses: [{ address: '10.9.9.9' }],
    });
    await expect(guard.check('127.0.0.1')).resolves.toMatchObject({ addresses: [{ address: '127.0.0.1' }] });
    await expect(guard.check('::ffff:127.0.0.1')).resolves.toMatchObject({ host: '::ffff:127.0.0.1' });
    await expect(guard.check('internal.example')).resolves.toMatchObject({
      addresses: [{ address: '10.0.0.7' }],
    });
    await expect(guard.check('127.0.0.2')).rejects.toBeInstanceOf(SsrfRefusal);
  });

  it('reports a failed lookup as such, naming the host', async () => {
    const guard = createDeliveryGuard(NO_ALLOWED_HOSTS, resolver);
    const failure = await guard.check('nowhere.example').catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(ResolveFailure);
    expect((failure as Error).message).toBe('cannot resolve nowhere.example (ENOTFOUND)');
  });
});
