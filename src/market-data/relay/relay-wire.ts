/**
 * The relay's messages on Postgres NOTIFY (feed-coordinator.ts): a feed's owner sends the updates it
 * gets upstream; an instance whose new subscriber needs a snapshot asks for the latest. A NOTIFY
 * payload must stay under 8,000 bytes, so updates that happen together are batched into as few
 * messages as fit. Compact JSON:
 *   {"i": sender instance, "t": [[feed key, price, change, change %, volume, currency, size, asOf ms,
 *     provider, confidence, live (1/0), sent ms], ...], "w": [feed keys wanted]}
 */
import type { PriceUpdate } from '../hub/tick-updates.ts';

/** Under Postgres's 8,000-byte NOTIFY limit, with room for the channel name. */
export const MAX_PAYLOAD_BYTES = 7_800;

export interface RelayedUpdate {
  readonly key: string;
  readonly update: PriceUpdate;
  /** When the owner sent it (epoch ms), for the relay's lag. */
  readonly sentAt: number;
}

export interface RelayMessage {
  readonly from: string;
  readonly updates: readonly RelayedUpdate[];
  /** Feeds whose latest update the sender asks their owners for (a new subscriber's snapshot). */
  readonly wanted: readonly string[];
}

type UpdateRow = [
  string,
  number,
  number | null,
  number | null,
  number | null,
  string,
  number | null,
  number,
  string,
  number,
  0 | 1,
  number,
];

function rowOf(u: RelayedUpdate): UpdateRow {
  const x = u.update;
  return [
    u.key,
    x.price,
    x.change,
    x.changePercent,
    x.volume,
    x.currency,
    x.size,
    x.asOf.getTime(),
    x.provider,
    x.confidence,
    x.live ? 1 : 0,
    u.sentAt,
  ];
}

/**
 * The payloads that carry `updates` and `wanted` from `from`: each under MAX_PAYLOAD_BYTES (an
 * update too large alone, which real ones never are, is left out).
 */
export function encodeRelay(
  from: string,
  updates: readonly RelayedUpdate[],
  wanted: readonly string[] = [],
): string[] {
  const payloads: string[] = [];
  const head = `{"i":${JSON.stringify(from)},"t":[`;
  let parts: string[] = [];
  let size = head.length;
  const flush = (tail: string) => {
    payloads.push(`${head}${parts.join(',')}]${tail}}`);
    parts = [];
    size = head.length;
  };
  for (const u of updates) {
    const part = JSON.stringify(rowOf(u));
    if (head.length + part.length + 2 > MAX_PAYLOAD_BYTES) continue;
    if (size + part.length + 1 + 2 > MAX_PAYLOAD_BYTES) flush('');
    parts.push(part);
    size += part.length + 1;
  }
  let wants: string[] = [];
  for (const key of wanted) {
    const extra = JSON.stringify(key).length + 1;
    if (
      size + `,"w":[${wants.map((k) => JSON.stringify(k)).join(',')}]`.length + extra + 2 >
      MAX_PAYLOAD_BYTES
    ) {
      flush(`,"w":${JSON.stringify(wants)}`);
      wants = [];
    }
    wants.push(key);
  }
  if (parts.length > 0 || wants.length > 0) flush(wants.length > 0 ? `,"w":${JSON.stringify(wants)}` : '');
  return payloads;
}

const isNumberOrNull = (v: unknown): v is number | null =>
  v === null || (typeof v === 'number' && Number.isFinite(v));

/** A message read back; null when the payload is not one (another version, a stray NOTIFY). */
export function decodeRelay(payload: string): RelayMessage | null {
  let raw: unknown;
  try {
    raw = JSON.parse(payload);
  } catch {
    return null;
  }
  if (!raw || typeof raw !== 'object') return null;
  const { i, t, w } = raw as { i?: unknown; t?: unknown; w?: unknown };
  if (typeof i !== 'string' || !Array.isArray(t)) return null;
  const updates: RelayedUpdate[] = [];
  for (const row of t) {
    if (!Array.isArray(row) || row.length !== 12) return null;
    const [
      key,
      price,
      change,
      changePercent,
      volume,
      currency,
      size,
      asOf,
      provider,
      confidence,
      live,
      sentAt,
    ] = row;
    if (typeof key !== 'string' || typeof price !== 'number' || !Number.isFinite(price)) return null;
    if (![change, changePercent, volume, size].every(isNumberOrNull)) return null;
    if (typeof currency !== 'string' || typeof provider !== 'string') return null;
    if (typeof asOf !== 'number' || typeof confidence !== 'number' || typeof sentAt !== 'number') return null;
    updates.push({
      key,
      sentAt,
      update: {
        price,
        change,
        changePercent,
        volume,
        currency,
        size,
        asOf: new Date(asOf),
        provider,
        confidence,
        live: live === 1,
      },
    });
  }
  const wanted = Array.isArray(w) ? w.filter((k): k is string => typeof k === 'string') : [];
  return { from: i, updates, wanted };
}
