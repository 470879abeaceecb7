/**
 * Which unowned feeds an instance takes (feed-coordinator.ts). Ownership is spread: an instance
 * takes at most its fair share (the feeds wanted anywhere over the live instances, rounded up) of
 * the feeds no live instance holds; one left unowned for longer than the grace period is taken by
 * whoever wants it, so a feed is never left without an owner because shares disagree for a moment.
 */

export interface UnownedFeed {
  readonly key: string;
  /** How long it has been without a live owner, as far as this instance knows. */
  readonly unownedForMs: number;
}

export interface ShareInput {
  readonly instance: string;
  /** Feeds this instance wants that no live instance holds. */
  readonly unowned: readonly UnownedFeed[];
  /** Feeds this instance holds now. */
  readonly owned: number;
  /** Feeds wanted by any live instance. */
  readonly wanted: number;
  readonly liveInstances: number;
  readonly graceMs: number;
}

/** A stable order per instance, so instances that race for the same feeds start from different ends. */
function rank(instance: string, key: string): number {
  let h = 2_166_136_261;
  for (const c of `${instance}\u0000${key}`) h = Math.imul(h ^ c.charCodeAt(0), 16_777_619);
  return h >>> 0;
}

/** The fair share of each live instance. */
export function fairShare(wanted: number, liveInstances: number): number {
  return Math.ceil(wanted / Math.max(1, liveInstances));
}

/** The feeds to try to take now (see the file comment). */
export function feedsToTake(input: ShareInput): string[] {
  const room = Math.max(0, fairShare(input.wanted, input.liveInstances) - input.owned);
  const overdue = input.unowned.filter((f) => f.unownedForMs > input.graceMs).map((f) => f.key);
  const rest = input.unowned
    .filter((f) => f.unownedForMs <= input.graceMs)
    .sort((a, b) => rank(input.instance, a.key) - rank(input.instance, b.key))
    .slice(0, room)
    .map((f) => f.key);
  return [...overdue, ...rest];
}

/**
 * The feed to hand over, when this instance holds more than its fair share: one of those another
 * live instance wants too (it takes it at its next round), one per round so ownership moves
 * gradually; none otherwise.
 */
export function feedToHandOver(input: {
  readonly instance: string;
  readonly owned: number;
  readonly wanted: number;
  readonly liveInstances: number;
  readonly sharedOwned: readonly string[];
}): string | undefined {
  if (input.owned <= fairShare(input.wanted, input.liveInstances)) return undefined;
  return [...input.sharedOwned].sort((a, b) => rank(input.instance, a) - rank(input.instance, b))[0];
}
