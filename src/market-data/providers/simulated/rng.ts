/**
 * Counter-based randomness for the simulated market. Every draw is a pure function of
 * (seed, stream, keys): any value (a minute's shock, a day's jump, a transfer's size) can be
 * computed on its own, in any order, without generating the ones before it. That is what lets the
 * market answer "price at 14:03:27 on 2019-06-12" without simulating everything since 2015, and
 * what makes two providers with the same seed agree bit for bit.
 */

/** 32-bit avalanche finaliser (xor-shift-multiply); every input bit affects every output bit. */
export function mix32(x: number): number {
  let h = x | 0;
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a over UTF-16 code units, then mixed: names of streams, symbols and seeds become keys. */
export function hashString(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return mix32(h);
}

const step = (h: number, x: number) => mix32((h ^ (x | 0)) + 0x6a09e667);

/** Hash of a seed and up to four integer keys (each below 2^32 in magnitude). */
export function hashKeys(seed: number, a: number, b = 0, c = 0, d = 0): number {
  return step(step(step(step(mix32(seed ^ 0x9e3779b9), a), b), c), d);
}

/** A uniform in the open interval (0, 1) from a 32-bit hash. */
export function toUniform(h: number): number {
  return (h + 0.5) / 4_294_967_296;
}

/** A standard normal from one hash (Box-Muller with a second, derived hash). */
export function toNormal(h: number): number {
  const u1 = toUniform(h);
  const u2 = toUniform(mix32(h ^ 0x5bd1e995));
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

const SQRT3 = Math.sqrt(3);

/**
 * A cheap, bounded, approximately normal draw (Irwin-Hall of four 16-bit uniforms, rescaled to unit
 * variance). Used for sub-minute microstructure, where millions of draws are made and tails do not
 * matter.
 */
export function toFastNormal(h: number): number {
  const g = mix32(h ^ 0x27d4eb2f);
  const sum = (h & 0xffff) + (h >>> 16) + (g & 0xffff) + (g >>> 16);
  return (sum / 65_536 - 2) * SQRT3;
}

/** Poisson count for a small mean from one uniform (inverse transform). */
export function poisson(mean: number, u: number): number {
  let k = 0;
  let p = Math.exp(-mean);
  let cumulative = p;
  while (u > cumulative && k < 1_000) {
    k++;
    p *= mean / k;
    cumulative += p;
  }
  return k;
}

/**
 * Keyed draws for one seed. `stream` separates purposes (daily shocks vs volume noise...) so that
 * adding a new use of randomness never shifts the values of existing ones.
 */
export class Rand {
  constructor(readonly seed: number) {}

  static fromSeed(seed: string): Rand {
    return new Rand(hashString(`vigil-simulated:${seed}`));
  }

  hash(stream: number, a: number, b = 0, c = 0): number {
    return hashKeys(this.seed, stream, a, b, c);
  }

  uniform(stream: number, a: number, b = 0, c = 0): number {
    return toUniform(hashKeys(this.seed, stream, a, b, c));
  }

  normal(stream: number, a: number, b = 0, c = 0): number {
    return toNormal(hashKeys(this.seed, stream, a, b, c));
  }

  fastNormal(stream: number, a: number, b = 0, c = 0): number {
    return toFastNormal(hashKeys(this.seed, stream, a, b, c));
  }

  /** Integer in [0, n). */
  int(n: number, stream: number, a: number, b = 0, c = 0): number {
    return Math.min(n - 1, Math.floor(this.uniform(stream, a, b, c) * n));
  }

  /** A permutation of 0..n-1 that depends only on the seed and the stream (Fisher-Yates). */
  permutation(n: number, stream: number): number[] {
    const out = Array.from({ length: n }, (_, i) => i);
    for (let i = n - 1; i > 0; i--) {
      const j = this.int(i + 1, stream, i);
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  }
}

/** Stream ids by name, so call sites read as prose and never collide by accident. */
export const stream = (name: string): number => hashString(name);

/** A small least-recently-used cache (Map keeps insertion order). */
export class Lru<K, V> {
  readonly #map = new Map<K, V>();

  constructor(private readonly capacity: number) {}

  get(key: K): V | undefined {
    const value = this.#map.get(key);
    if (value !== undefined) {
      this.#map.delete(key);
      this.#map.set(key, value);
    }
    return value;
  }

  set(key: K, value: V): void {
    this.#map.delete(key);
    this.#map.set(key, value);
    if (this.#map.size > this.capacity) this.#map.delete(this.#map.keys().next().value as K);
  }

  getOrCreate(key: K, create: () => V): V {
    const hit = this.get(key);
    if (hit !== undefined) return hit;
    const value = create();
    this.set(key, value);
    return value;
  }

  get size(): number {
    return this.#map.size;
  }
}
