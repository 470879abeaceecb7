import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';
import type { Principal } from '../access/principal.ts';

/** Where a request comes from, as limits count anonymous callers. */
export interface ClientAddress {
  /**
   * `ip:<address>` (an IPv6 client by its /64, the block one subscriber gets). Never taken from a
   * header the client may write freely.
   */
  readonly clientId: string;
  readonly remoteAddress: string | undefined;
}

/** Who is calling: the authenticated principal, and the key its limits are counted under. */
export interface Viewer {
  /**
   * Stable key for per-client limits: `key:<id>` for a principal with a key (however many
   * addresses it calls from), `local` for the stdio operator, and the address for anonymous callers.
   */
  readonly clientId: string;
  /** The address-based id (`ip:<address>`) whatever the principal: failures are counted under it. */
  readonly addressId: string;
  readonly remoteAddress: string | undefined;
  readonly principal: Principal;
}

/** The viewer of an authenticated call: limits follow the principal when it holds a key. */
export function viewerOf(address: ClientAddress, principal: Principal): Viewer {
  const clientId =
    principal.kind === 'anonymous'
      ? address.clientId
      : principal.kind === 'local'
        ? 'local'
        : `key:${principal.id}`;
  return { clientId, addressId: address.clientId, remoteAddress: address.remoteAddress, principal };
}

/**
 * The client is the remote address. Behind `trustProxyHops` proxies, it is the address the
 * outermost of them saw: that many entries from the right of X-Forwarded-For (each proxy appends
 * the address that connected to it; entries further left are whatever the client wrote). An entry
 * that is not an IP address is ignored in favour of the socket's address.
 */
export function identifyClient(
  headers: { get(name: string): string | null | undefined },
  req: IncomingMessage | undefined,
  trustProxyHops: number,
): ClientAddress {
  const socketAddress = normalizeAddress(req?.socket.remoteAddress);
  const remoteAddress =
    (trustProxyHops > 0 ? forwardedClient(headers.get('x-forwarded-for'), trustProxyHops) : undefined) ??
    socketAddress;
  return { clientId: remoteAddress ? `ip:${limitKey(remoteAddress)}` : 'ip:unknown', remoteAddress };
}

/** The address `hops` entries from the right of an X-Forwarded-For value (the leftmost if fewer). */
export function forwardedClient(header: string | null | undefined, hops: number): string | undefined {
  if (!header || hops < 1) return undefined;
  const entries = header.split(',').map((entry) => entry.trim());
  return normalizeAddress(entries[Math.max(0, entries.length - hops)]);
}

/**
 * An IP address in one spelling: without brackets or port, IPv4-mapped IPv6 as IPv4, lower case.
 * Undefined for anything else (a name, `unknown`, garbage).
 */
export function normalizeAddress(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  let address = raw.trim();
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(address);
  if (bracketed) address = bracketed[1]!;
  else if (/^[\d.]+:\d+$/.test(address)) address = address.slice(0, address.lastIndexOf(':'));
  address = address.toLowerCase().replace(/%.*$/, '');
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/.exec(address);
  if (mapped) address = mapped[1]!;
  return isIP(address) ? address : undefined;
}

/** IPv4 as is; IPv6 by its /64 prefix, since one subscriber holds a whole /64. */
export function limitKey(address: string): string {
  if (isIP(address) !== 6) return address;
  const groups = expandIpv6(address);
  return `${groups.slice(0, 4).join(':')}::/64`;
}

function expandIpv6(address: string): string[] {
  let text = address;
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const zeros = tail === undefined ? [] : Array(8 - left.length - right.length).fill('0');
  return [...left, ...zeros, ...right].map((group) => Number.parseInt(group, 16).toString(16));
}

/** Headers of a Node request, read through the same `get` interface as fetch Headers. */
export function nodeHeaders(req: IncomingMessage) {
  return {
    get(name: string): string | undefined {
      const value = req.headers[name.toLowerCase()];
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}
