import { describe, expect, it } from 'vitest';
import {
  hashKeys,
  hashString,
  Lru,
  mix32,
  poisson,
  Rand,
  stream,
  toFastNormal,
  toNormal,
  toUniform,
} from './rng.ts';

const moments = (values: number[]) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / (values.length - 1);
  return { mean, variance };
};

describe('counter-based randomness', () => {
  it('is a pure function of seed and keys', () => {
    const a = Rand.fromSeed('vigil');
    const b = Rand.fromSeed('vigil');
    const s = stream('test');
    for (let i = 0; i < 100; i++) {
      expect(a.normal(s, i, 7)).toBe(b.normal(s, i, 7));
      expect(a.uniform(s, 3, i)).toBe(b.uniform(s, 3, i));
    }
    expect(Rand.fromSeed('other').uniform(s, 1)).not.toBe(a.uniform(s, 1));
    expect(a.uniform(s, 1, 2)).not.toBe(a.uniform(s, 2, 1));
    expect(a.uniform(stream('a'), 1)).not.toBe(a.uniform(stream('b'), 1));
  });

  it('mixes every input bit into 32 output bits', () => {
    expect(mix32(0)).toBe(0);
    const flips: number[] = [];
    for (let bit = 0; bit < 32; bit++) {
      const diff = (mix32(12345) ^ mix32(12345 ^ (1 << bit))) >>> 0;
      flips.push(diff.toString(2).split('1').length - 1);
    }
    expect(Math.min(...flips)).toBeGreaterThan(6);
    expect(hashString('BTC')).not.toBe(hashString('ETH'));
    expect(hashKeys(1, 2, 3)).toBeLessThan(2 ** 32);
  });

  it('draws uniforms in (0, 1) and normals with unit variance', () => {
    const rand = new Rand(42);
    const s = stream('moments');
    const uniforms = Array.from({ length: 20_000 }, (_, i) => rand.uniform(s, i));
    expect(Math.min(...uniforms)).toBeGreaterThan(0);
    expect(Math.max(...uniforms)).toBeLessThan(1);
    expect(moments(uniforms).mean).toBeCloseTo(0.5, 1);
    const normals = moments(Array.from({ length: 20_000 }, (_, i) => toNormal(rand.hash(s, i, 1))));
    expect(Math.abs(normals.mean)).toBeLessThan(0.03);
    expect(normals.variance).toBeGreaterThan(0.95);
    expect(normals.variance).toBeLessThan(1.05);
    const fast = moments(Array.from({ length: 20_000 }, (_, i) => toFastNormal(rand.hash(s, i, 2))));
    expect(Math.abs(fast.mean)).toBeLessThan(0.03);
    expect(fast.variance).toBeGreaterThan(0.95);
    expect(fast.variance).toBeLessThan(1.05);
    expect(toUniform(0)).toBeGreaterThan(0);
    expect(toUniform(2 ** 32 - 1)).toBeLessThan(1);
  });

  it('samples Poisson counts with the requested mean', () => {
    const rand = new Rand(7);
    const s = stream('poisson');
    const counts = Array.from({ length: 20_000 }, (_, i) => poisson(0.6, rand.uniform(s, i)));
    expect(moments(counts).mean).toBeCloseTo(0.6, 1);
    expect(poisson(2, 0.000001)).toBe(0);
  });

  it('builds seeded permutations', () => {
    const rand = Rand.fromSeed('vigil');
    const p = rand.permutation(18, stream('perm'));
    expect([...p].sort((a, b) => a - b)).toEqual(Array.from({ length: 18 }, (_, i) => i));
    expect(rand.permutation(18, stream('perm'))).toEqual(p);
    expect(Rand.fromSeed('x').permutation(18, stream('perm'))).not.toEqual(p);
  });
});

describe('Lru', () => {
  it('evicts the least recently used entry', () => {
    const lru = new Lru<string, number>(2);
    lru.set('a', 1);
    lru.set('b', 2);
    expect(lru.get('a')).toBe(1);
    lru.set('c', 3);
    expect(lru.get('b')).toBeUndefined();
    expect(lru.get('a')).toBe(1);
    expect(lru.getOrCreate('c', () => 9)).toBe(3);
    expect(lru.getOrCreate('d', () => 4)).toBe(4);
    expect(lru.size).toBe(2);
  });
});
