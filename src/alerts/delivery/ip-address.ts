/**
 * IP addresses and CIDR blocks as numbers, so ranges are compared arithmetically rather than by
 * string prefix (`::ffff:7f00:1`, `0:0:0:0:0:ffff:127.0.0.1` and `::ffff:127.0.0.1` are one address).
 */
import { isIP } from 'node:net';

export interface IpAddress {
  readonly version: 4 | 6;
  readonly value: bigint;
}

export interface Cidr {
  readonly version: 4 | 6;
  readonly base: bigint;
  readonly prefix: number;
}

const BITS = { 4: 32, 6: 128 } as const;

/** An address from its text (IPv6 may be bracketed or carry a zone id); null when not an address. */
export function parseIp(text: string): IpAddress | null {
  let s = text.trim();
  if (s.startsWith('[') && s.endsWith(']')) s = s.slice(1, -1);
  const zone = s.indexOf('%');
  if (zone >= 0) s = s.slice(0, zone);
  const version = isIP(s);
  if (version === 4) return { version: 4, value: parseV4(s) };
  if (version === 6) return { version: 6, value: parseV6(s) };
  return null;
}

function parseV4(s: string): bigint {
  return s.split('.').reduce((acc, part) => (acc << 8n) | BigInt(Number(part)), 0n);
}

function parseV6(s: string): bigint {
  let text = s.toLowerCase();
  // A trailing dotted quad stands for the last two groups.
  const quad = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (quad?.[1]) {
    const v4 = parseV4(quad[1]);
    text = `${text.slice(0, quad.index)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - headGroups.length - tailGroups.length).fill('0');
  return [...headGroups, ...zeros, ...tailGroups].reduce((acc, g) => (acc << 16n) | BigInt(`0x${g}`), 0n);
}

/** The IPv4 address inside an IPv4-mapped IPv6 address (`::ffff:a.b.c.d`), else the address itself. */
export function unmapped(ip: IpAddress): IpAddress {
  if (ip.version === 6 && ip.value >> 32n === 0xffffn) return { version: 4, value: ip.value & 0xffffffffn };
  return ip;
}

/** `10.0.0.0/8`, `fc00::/7`, or a single address (a /32 or /128); null when malformed. */
export function parseCidr(text: string): Cidr | null {
  const slash = text.lastIndexOf('/');
  const ip = parseIp(slash >= 0 ? text.slice(0, slash) : text);
  if (!ip) return null;
  const bits = BITS[ip.version];
  const prefixText = slash >= 0 ? text.slice(slash + 1) : String(bits);
  if (!/^\d{1,3}$/.test(prefixText)) return null;
  const prefix = Number(prefixText);
  if (prefix > bits) return null;
  return { version: ip.version, base: ip.value & mask(ip.version, prefix), prefix };
}

export function inCidr(ip: IpAddress, cidr: Cidr): boolean {
  return ip.version === cidr.version && (ip.value & mask(ip.version, cidr.prefix)) === cidr.base;
}

function mask(version: 4 | 6, prefix: number): bigint {
  const bits = BigInt(BITS[version]);
  const all = (1n << bits) - 1n;
  return (all >> (bits - BigInt(prefix))) << (bits - BigInt(prefix));
}

/** Shorthand for fixed tables; throws on a typo in the table itself. */
export function cidr(text: string): Cidr {
  const parsed = parseCidr(text);
  if (!parsed) throw new Error(`not a CIDR block: ${text}`);
  return parsed;
}
