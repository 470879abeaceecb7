/**
 * Destinations written as addresses, judged when an alert is written: a webhook URL or SMTP host
 * that IS a loopback, private, link-local, CGNAT, metadata or unspecified address can never be
 * delivered to (the guard refuses it at every attempt), so the write is refused instead, naming
 * the reason. The judgement is the delivery guard's own (ssrf.ts, with ALERT_DELIVERY_ALLOWED_HOSTS);
 * this file only finds the address in every spelling a connection would accept. Host names are
 * not looked up here: what they resolve to can change, so they are checked at every delivery.
 */
import { parseIp } from './ip-address.ts';
import { type AllowedHosts, createDeliveryGuard, type Resolver, SsrfRefusal } from './ssrf.ts';

/** Characters of the numeric IPv4 spellings (`2130706433`, `0x7f.1`, `0177.0.0.1`, `127.1`). */
const IPV4_SPELLING = /^[0-9a-fA-FxX.]+$/;

/** A literal address never needs a lookup; a name never reaches the guard from here. */
const NO_LOOKUP: Resolver = () => Promise.reject(new Error('a literal address needs no lookup'));

/**
 * The address `host` spells, in a form the guard reads, or null when `host` is a name. IPv6 may be
 * bracketed, carry a zone or embed IPv4 (`::ffff:127.0.0.1`); IPv4 may be written the ways
 * `inet_aton` (and so the system resolver) and URL parsers accept: decimal, hex or octal parts,
 * fewer than four parts, a trailing dot. Those are read as a URL host is (WHATWG), which gives the
 * dotted quad.
 */
export function literalAddress(host: string): string | null {
  let text = host.trim();
  if (text.startsWith('[') && text.endsWith(']')) text = text.slice(1, -1);
  if (parseIp(text)) return text;
  if (!IPV4_SPELLING.test(text)) return null;
  let canonical: string;
  try {
    canonical = new URL(`http://${text}/`).hostname;
  } catch {
    return null;
  }
  return parseIp(canonical) ? canonical : null;
}

/**
 * Why a delivery to `host` would always be refused, or null when it would not be (a public address,
 * one ALERT_DELIVERY_ALLOWED_HOSTS allows, or a name, which is checked when delivering).
 */
export async function literalHostRefusal(host: string, allowed: AllowedHosts): Promise<string | null> {
  const address = literalAddress(host);
  if (!address) return null;
  const name = host
    .trim()
    .toLowerCase()
    .replace(/^\[(.*)\]$/, '$1')
    .replace(/\.$/, '');
  // An allow-listed entry spelled like a name (`2130706433`) is matched as the guard matches names.
  if (allowed.hosts.has(name)) return null;
  try {
    await createDeliveryGuard(allowed, NO_LOOKUP).check(address);
    return null;
  } catch (error) {
    if (!(error instanceof SsrfRefusal)) throw error;
    const spelled = error.address === name ? '' : ` (${error.address})`;
    return `${name}${spelled} is ${error.reason}: deliveries never go there unless ALERT_DELIVERY_ALLOWED_HOSTS allows it`;
  }
}
