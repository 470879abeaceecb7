/**
 * Reconciling one number reported by several providers (a price). The answer is always a value
 * some provider actually reported, with its own time: the candidate closest to the median of the
 * agreeing group. Values further than `tolerance` (relative) from the median are rejected as
 * outliers; stale values (much older than the freshest) are rejected before that.
 */
export interface Candidate {
  readonly provider: string;
  readonly value: number;
  readonly asOf: Date;
}

export interface Rejection {
  readonly provider: string;
  readonly reason: string;
}

export interface Reconciled {
  readonly chosen: Candidate;
  readonly used: readonly Candidate[];
  readonly rejected: readonly Rejection[];
  /** Share of answering providers within tolerance of the chosen value (1 when alone or unanimous). */
  readonly agreement: number;
  /** True when some provider's value was set aside. */
  readonly conflict: boolean;
}

export interface ReconcileOptions {
  /** Relative distance from the median beyond which a value is an outlier (0.01 = 1 %). */
  readonly tolerance: number;
  /** Values older than the freshest by more than this are rejected as stale. */
  readonly maxLagMs: number;
  /** Tie-breaker when no majority exists: earlier providers are preferred (health rank). */
  readonly preference: readonly string[];
}

export function reconcile(candidates: readonly Candidate[], options: ReconcileOptions): Reconciled {
  if (candidates.length === 0) throw new Error('reconcile needs at least one candidate');
  const rejected: Rejection[] = [];
  const freshest = Math.max(...candidates.map((c) => c.asOf.getTime()));
  const timely = candidates.filter((c) => {
    const lag = freshest - c.asOf.getTime();
    if (lag > options.maxLagMs) {
      rejected.push({
        provider: c.provider,
        reason: `stale: ${Math.round(lag / 1000)}s older than the freshest quote`,
      });
      return false;
    }
    return true;
  });

  const rank = (c: Candidate) => {
    const i = options.preference.indexOf(c.provider);
    return i === -1 ? Number.MAX_SAFE_INTEGER : i;
  };
  const m = median(timely.map((c) => c.value));
  const within = (c: Candidate, ref: number) => Math.abs(c.value - ref) / Math.abs(ref) <= options.tolerance;
  let used = timely.filter((c) => within(c, m));
  if (used.length === 0) {
    // No value is near the median (e.g. two providers disagreeing): trust the best-ranked one
    // and whoever agrees with it.
    const best = [...timely].sort((a, b) => rank(a) - rank(b))[0]!;
    used = timely.filter((c) => within(c, best.value));
  }
  const center = median(used.map((c) => c.value));
  const chosen = [...used].sort(
    (a, b) =>
      Math.abs(a.value - center) - Math.abs(b.value - center) ||
      b.asOf.getTime() - a.asOf.getTime() ||
      rank(a) - rank(b),
  )[0]!;
  for (const c of timely) {
    if (!used.includes(c)) {
      const off = ((c.value - chosen.value) / chosen.value) * 100;
      rejected.push({
        provider: c.provider,
        reason: `outlier: ${c.value} is ${off >= 0 ? '+' : ''}${off.toFixed(2)}% from the agreed ${chosen.value}`,
      });
    }
  }
  return {
    chosen,
    used,
    rejected,
    agreement: used.length / candidates.length,
    conflict: rejected.length > 0,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}
