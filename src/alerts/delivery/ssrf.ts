/**
 * SSRF guard for every outbound delivery (webhook URL, chat API base URL, SMTP host): an alert's
 * owner chooses the destination, so Vigil must not become a way into its own network. A host is
 * resolved once, refused if ANY of its addresses is internal (a name with one public and one
 * private address is not safe: the connection could pick either), and the connection is then
 * pinned to the checked addresses so a second DNS answer cannot swap in another (DNS rebinding).
 * Hosts or address blocks listed in ALERT_DELIVERY_ALLOWED_HOSTS skip the refusal (local relays,
 * test receivers); they are still pinned.
 */
import { lookup } from 'node:dns/promises';
import { type Cidr, cidr, type IpAddress, inCidr, parseCidr, parseIp, unmapped } from './ip-address.ts';

/** Why an address is refused, completing "refused: <address> is ...". */
const REFUSED: ReadonlyArray<readonly [Cidr, string]> = [
  // Cloud metadata first: more specific than the link-local and private blocks around them.
  [cidr('169.254.169.254/32'), 'a cloud metadata address'],
  [cidr('fd00:ec2::254/128'), 'a cloud metadata address'],
  [cidr('0.0.0.0/8'), 'an unspecified address'],
  [cidr('10.0.0.0/8'), 'a private address'],
  [cidr('100.64.0.0/10'), 'a shared (CGNAT) address'],
  [cidr('127.0.0.0/8'), 'a loopback address'],
  [cidr('169.254.0.0/16'), 'a link-local address'],
  [cidr('172.16.0.0/12'), 'a private address'],
  [cidr('192.0.0.0/24'), 'a reserved address'],
  [cidr('192.0.2.0/24'), 'a reserved (documentation) address'],
  [cidr('192.88.99.0/24'), 'a reserved address'],
  [cidr('192.168.0.0/16'), 'a private address'],
  [cidr('198.18.0.0/15'), 'a reserved (benchmarking) address'],
  [cidr('198.51.100.0/24'), 'a reserved (documentation) address'],
  [cidr('203.0.113.0/24'), 'a reserved (documentation) address'],
  [cidr('224.0.0.0/4'), 'a multicast address'],
  [cidr('255.255.255.255/32'), 'a broadcast address'],
  [cidr('240.0.0.0/4'), 'a reserved address'],
  [cidr('::/128'), 'an unspecified address'],
  [cidr('::1/128'), 'a loopback address'],
  [cidr('64:ff9b:1::/48'), 'a private address'],
  [cidr('fc00::/7'), 'a private address'],
  [cidr('fe80::/10'), 'a link-local address'],
  [cidr('fec0::/10'), 'a private (site-local) address'],
  [cidr('ff00::/8'), 'a multicast address'],
  [cidr('2001:db8::/32'), 'a reserved (documentation) address'],
  [cidr('2001::/23'), 'a reserved address'],
  [cidr('100::/64'), 'a reserved address'],
];
/** Public unicast IPv6 lives here; anything outside (IPv4-compatible `::a.b.c.d` too) is refused. */
const GLOBAL_UNICAST_V6 = cidr('2000::/3');
/** Prefixes that carry an IPv4 address the packet really goes to: judge that address. */
const NAT64 = cidr('64:ff9b::/96');
const SIX_TO_FOUR = cidr('2002::/16');

/** Why `address` must not be contacted, or null when it is a public address. */
export function refusalReason(address: string): string | null {
  const parsed = parseIp(address);
  if (!parsed) return 'not an IP address';
  return reasonFor(unmapped(parsed));
}

function reasonFor(ip: IpAddress): string | null {
  for (const [block, reason] of REFUSED) if (inCidr(ip, block)) return reason;
  if (ip.version === 4) return null;
  if (inCidr(ip, NAT64)) return reasonFor({ version: 4, value: ip.value & 0xffffffffn });
  if (inCidr(ip, SIX_TO_FOUR)) return reasonFor({ version: 4, value: (ip.value >> 80n) & 0xffffffffn });
  return inCidr(ip, GLOBAL_UNICAST_V6) ? null : 'a reserved address';
}

/** ALERT_DELIVERY_ALLOWED_HOSTS, parsed: exact host names and address blocks exempt from refusal. */
export interface AllowedHosts {
  readonly hosts: ReadonlySet<string>;
  readonly blocks: readonly Cidr[];
}

export const NO_ALLOWED_HOSTS: AllowedHosts = { hosts: new Set(), blocks: [] };

const HOST_NAME = /^(?=.{1,253}$)[a-z0-9_]([a-z0-9_-]{0,62})(\.[a-z0-9_]([a-z0-9_-]{0,62}))*$/;

/**
 * Entries are host names (`relay.internal`, matched exactly, case-insensitively), addresses
 * (`127.0.0.1`, `[::1]`) or CIDR blocks (`10.1.0.0/16`). Blank entries are ignored; anything else
 * throws an error naming the entry (a typo must not silently allow nothing).
 */
export function parseAllowedHosts(list: readonly string[]): AllowedHosts {
  const hosts = new Set<string>();
  const blocks: Cidr[] = [];
  for (const raw of list) {
    const entry = raw.trim().toLowerCase().replace(/\.$/, '');
    if (!entry) continue;
    const block = parseCidr(entry);
    if (block) blocks.push(block);
    else if (!entry.includes('/') && HOST_NAME.test(entry)) hosts.add(entry);
    else
      throw new Error(
        `ALERT_DELIVERY_ALLOWED_HOSTS: "${raw.trim()}" is not a host name, address or CIDR block`,
      );
  }
  return { hosts, blocks };
}

/** Whether an address lies in an allowed block. */
export function allowsAddress(allowed: AllowedHosts, address: string): boolean {
  const parsed = parseIp(address);
  if (!parsed) return false;
  const forms = [parsed, unmapped(parsed)];
  return allowed.blocks.some((block) => forms.some((ip) => inCidr(ip, block)));
}

export interface ResolvedAddress {
  readonly address: string;
  readonly family: 4 | 6;
}

/** DNS lookup of every address of a host name. */
export type Resolver = (host: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = async (host) => {
  const found = await lookup(host, { all: true, verbatim: true });
  return found.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** A destination that may not be contacted; a permanent failure of the delivery. */
export class SsrfRefusal extends Error {
  constructor(
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(
      host === address
        ? `refused: ${address} is ${reason}`
        : `refused: ${host} resolves to ${address}, ${reason}`,
    );
    this.name = 'SsrfRefusal';
  }
}

/** The host could not be resolved: may be transient, so the delivery is retried. */
export class ResolveFailure extends Error {
  constructor(
    readonly host: string,
    readonly code: string,
  ) {
    super(`cannot resolve ${host} (${code})`);
    this.name = 'ResolveFailure';
  }
}

/** A checked host and the addresses a connection to it must use. */
export interface PinnedHost {
  /** The host as named (no brackets), for TLS server names and Host headers. */
  readonly host: string;
  readonly addresses: readonly ResolvedAddress[];
}

export interface DeliveryGuard {
  /** Resolves and checks `host`; throws SsrfRefusal for a refused address, ResolveFailure when DNS fails. */
  check(host: string): Promise<PinnedHost>;
}

export function createDeliveryGuard(
  allowed: AllowedHosts,
  resolver: Resolver = systemResolver,
): DeliveryGuard {
  return {
    async check(rawHost) {
      const host = rawHost.replace(/^\[(.*)\]$/, '$1');
      const name = host.toLowerCase().replace(/\.$/, '');
      const literal = parseIp(host);
      let addresses: ResolvedAddress[];
      if (literal) {
        addresses = [{ address: host.replace(/%.*$/, ''), family: literal.version }];
      } else {
        try {
          addresses = await resolver(name);
        } catch (error) {
          throw new ResolveFailure(host, (error as NodeJS.ErrnoException)?.code ?? 'lookup failed');
        }
        if (addresses.length === 0) throw new ResolveFailure(host, 'no addresses');
      }
      if (!allowed.hosts.has(name)) {
        for (const { address } of addresses) {
          if (allowsAddress(allowed, address)) continue;
          const reason = refusalReason(address);
          if (reason) throw new SsrfRefusal(host, address, reason);
        }
      }
      return { host, addresses };
    },
  };
}

/**
 * Checks `host` for a delivery named `label` (`webhook`, `chat API`, `SMTP host`): the pinned host,
 * or the outcome the attempt ends with: a refused address fails for good, a failed lookup is retried.
 */
export async function guardHost(
  options: { readonly allowedHosts: AllowedHosts; readonly resolver?: Resolver | undefined },
  host: string,
  label: string,
  elapsed: () => number,
): Promise<
  | { readonly ok: true; readonly pinned: PinnedHost }
  | {
      readonly ok: false;
      readonly outcome: { status: 'failed' | 'retry'; responseCode: null; latencyMs: number; error: string };
    }
> {
  try {
    return {
      ok: true,
      pinned: await createDeliveryGuard(options.allowedHosts, options.resolver).check(host),
    };
  } catch (error) {
    if (error instanceof SsrfRefusal) {
      return {
        ok: false,
        outcome: {
          status: 'failed',
          responseCode: null,
          latencyMs: elapsed(),
          error: `${label} ${error.message}`,
        },
      };
    }
    if (error instanceof ResolveFailure) {
      return {
        ok: false,
        outcome: {
          status: 'retry',
          responseCode: null,
          latencyMs: elapsed(),
          error: `${label}: ${error.message}`,
        },
      };
    }
    throw error;
  }
}
