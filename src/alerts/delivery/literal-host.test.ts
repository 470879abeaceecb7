import { describe, expect, it } from 'vitest';
import { literalAddress, literalHostRefusal } from './literal-host.ts';
import { NO_ALLOWED_HOSTS, parseAllowedHosts } from './ssrf.ts';

describe('literalAddress', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['0x7f000001', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.000.000.001', '127.0.0.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['[::1]', '::1'],
    ['::ffff:127.0.0.1', '::ffff:127.0.0.1'],
    ['[::ffff:7f00:1]', '::ffff:7f00:1'],
    ['fe80::1%eth0', 'fe80::1%eth0'],
  ])('reads %s as %s', (host, address) => {
    expect(literalAddress(host)).toBe(address);
  });

  it.each(['mail.example.com', 'localhost', 'deadbeef', 'cafe.be', '1e3', '1.2.3.4.5', 'a..b'])(
    'takes %s for a name',
    (host) => {
      expect(literalAddress(host)).toBeNull();
    },
  );
});

describe('literalHostRefusal', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1 is a loopback address'],
    ['2130706433', '2130706433 (127.0.0.1) is a loopback address'],
    ['0x7f.1', '0x7f.1 (127.0.0.1) is a loopback address'],
    ['0177.0.0.1', '0177.0.0.1 (127.0.0.1) is a loopback address'],
    ['10.1.2.3', '10.1.2.3 is a private address'],
    ['012.1.2.3', '012.1.2.3 (10.1.2.3) is a private address'],
    ['172.16.0.1', '172.16.0.1 is a private address'],
    ['192.168.1.1', '192.168.1.1 is a private address'],
    ['169.254.169.254', '169.254.169.254 is a cloud metadata address'],
    ['0xa9fea9fe', '0xa9fea9fe (169.254.169.254) is a cloud metadata address'],
    ['169.254.1.1', '169.254.1.1 is a link-local address'],
    ['100.64.0.1', '100.64.0.1 is a shared (CGNAT) address'],
    ['0.0.0.0', '0.0.0.0 is an unspecified address'],
    ['[::1]', '::1 is a loopback address'],
    ['[::]', ':: is an unspecified address'],
    ['[::ffff:127.0.0.1]', '::ffff:127.0.0.1 is a loopback address'],
    ['[::ffff:a9fe:a9fe]', '::ffff:a9fe:a9fe is a cloud metadata address'],
    ['[fd00:ec2::254]', 'fd00:ec2::254 is a cloud metadata address'],
    ['[fe80::1]', 'fe80::1 is a link-local address'],
    ['[fc00::1]', 'fc00::1 is a private address'],
  ])('refuses %s', async (host, reason) => {
    await expect(literalHostRefusal(host, NO_ALLOWED_HOSTS)).resolves.toBe(
      `${reason}: deliveries never go there unless ALERT_DELIVERY_ALLOWED_HOSTS allows it`,
    );
  });

  it('leaves public addresses and names alone (names are checked when delivering)', async () => {
    for (const host of ['8.8.8.8', '[2606:4700:4700::1111]', 'localhost', 'internal.example']) {
      await expect(literalHostRefusal(host, NO_ALLOWED_HOSTS), host).resolves.toBeNull();
    }
  });

  it('lets ALERT_DELIVERY_ALLOWED_HOSTS through, as the guard does', async () => {
    const allowed = parseAllowedHosts(['127.0.0.1', '10.9.0.0/16', '2130706434']);
    await expect(literalHostRefusal('127.0.0.1', allowed)).resolves.toBeNull();
    await expect(literalHostRefusal('[::ffff:127.0.0.1]', allowed)).resolves.toBeNull();
    await expect(literalHostRefusal('2130706433', allowed)).resolves.toBeNull();
    await expect(literalHostRefusal('10.9.8.7', allowed)).resolves.toBeNull();
    await expect(literalHostRefusal('2130706434', allowed)).resolves.toBeNull();
    await expect(literalHostRefusal('127.0.0.3', allowed)).resolves.toMatch(/loopback/);
    await expect(literalHostRefusal('10.8.0.1', allowed)).resolves.toMatch(/private/);
  });
});
