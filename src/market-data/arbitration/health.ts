import type { Capability } from '../providers/provider.ts';
import type { ProviderErrorKind } from '../providers/provider-errors.ts';

/**
 * Measured health of each provider per capability: time-decayed averages of error rate, latency
 * and (for quotes) staleness of the data returned. Arbitration asks the healthiest provider first.
 * Answers about the data ("unknown symbol", "not supported") are not failures of the provider.
 */
export interface HealthSample {
  readonly ok: boolean;
  readonly latencyMs: number;
  readonly errorKind?: ProviderErrorKind;
  /** Age of the returned data (now - asOf) when the answer carries a time. */
  readonly stalenessMs?: number;
}

export interface HealthSnapshot {
  readonly provider: string;
  readonly capability: Capability;
  readonly calls: number;
  readonly failures: number;
  readonly errorRate: number;
  readonly latencyMs: number | null;
  readonly stalenessMs: number | null;
  readonly lastSuccessAt: Date | null;
  readonly lastFailureAt: Date | null;
  readonly lastError: string | null;
  readonly score: number;
}

interface Stats {
  calls: number;
  failures: number;
  errorRate: number;
  latencyMs: number | null;
  stalenessMs: number | null;
  updatedAt: number;
  lastSuccessAt: number | null;
  lastFailureAt: number | null;
  lastError: string | null;
}

/** Background work the provider's rate limit set aside says nothing about the provider either. */
const NOT_A_FAILURE: ReadonlySet<ProviderErrorKind> = new Set(['unknown_symbol', 'unsupported', 'deferred']);

export class HealthBoard {
  readonly #stats = new Map<string, Stats>();

  /** @param halfLifeMs how quickly old observations fade (default 5 minutes). */
  constructor(
    private readonly now: () => number,
    private readonly halfLifeMs = 5 * 60_000,
  ) {}

  record(provider: string, capability: Capability, sample: HealthSample, message?: string): void {
    if (!sample.ok && sample.errorKind && NOT_A_FAILURE.has(sample.errorKind)) return;
    const now = this.now();
    const key = `${provider}\u0000${capability}`;
    const s = this.#stats.get(key) ?? {
      calls: 0,
      failures: 0,
      errorRate: 0,
      latencyMs: null,
      stalenessMs: null,
      updatedAt: now,
      lastSuccessAt: null,
      lastFailureAt: null,
      lastError: null,
    };
    // Weight of the past decays with elapsed time, and the first samples count fully.
    const keep = s.calls === 0 ? 0 : Math.min(0.9, 0.5 ** ((now - s.updatedAt) / this.halfLifeMs) * 0.9);
    s.errorRate = keep * s.errorRate + (1 - keep) * (sample.ok ? 0 : 1);
    if (sample.ok) {
      s.latencyMs =
        s.latencyMs === null ? sample.latencyMs : keep * s.latencyMs + (1 - keep) * sample.latencyMs;
      if (sample.stalenessMs !== undefined) {
        const st = Math.max(0, sample.stalenessMs);
        s.stalenessMs = s.stalenessMs === null ? st : keep * s.stalenessMs + (1 - keep) * st;
      }
      s.lastSuccessAt = now;
    } else {
      s.failures++;
      s.lastFailureAt = now;
      s.lastError = message ?? sample.errorKind ?? 'error';
    }
    s.calls++;
    s.updatedAt = now;
    this.#stats.set(key, s);
  }

  /**
   * Higher is better, in (0, 1]. Error rate weighs most (squared), then latency (1 s halves it),
   * then staleness of returned quotes (a minute halves it). Unknown providers score as perfect so
   * configuration order decides until there is evidence.
   */
  score(provider: string, capability: Capability): number {
    const s = this.#stats.get(`${provider}\u0000${capability}`);
    if (!s) return 1;
    const reliability = (1 - s.errorRate) ** 2;
    const speed = 1 / (1 + (s.latencyMs ?? 0) / 1000);
    const freshness = 1 / (1 + (s.stalenessMs ?? 0) / 60_000);
    return Math.max(1e-6, reliability * speed * freshness);
  }

  /** Providers ordered by score; equal scores keep the given (configured) order. */
  rank(providers: readonly string[], capability: Capability): string[] {
    return providers
      .map((p, i) => ({ p, i, score: this.score(p, capability) }))
      .sort((a, b) => b.score - a.score || a.i - b.i)
      .map((x) => x.p);
  }

  snapshot(): HealthSnapshot[] {
    return [...this.#stats.entries()].map(([key, s]) => {
      const [provider, capability] = key.split('\u0000') as [string, Capability];
      return {
        provider,
        capability,
        calls: s.calls,
        failures: s.failures,
        errorRate: s.errorRate,
        latencyMs: s.latencyMs,
        stalenessMs: s.stalenessMs,
        lastSuccessAt: s.lastSuccessAt === null ? null : new Date(s.lastSuccessAt),
        lastFailureAt: s.lastFailureAt === null ? null : new Date(s.lastFailureAt),
        lastError: s.lastError,
        score: this.score(provider, capability),
      };
    });
  }
}
