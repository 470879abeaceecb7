/**
 * A watchdog's thresholds: plain numbers by key, each with the rule a working value keeps, and the
 * orderings between keys (a critical level beyond the high one). They are resolved once at start
 * (defaults, then the demo replacements, then the operator's values key by key) and a value that
 * cannot work is refused there, naming its key, instead of a watchdog that never fires or fires on
 * everything.
 */

export interface ThresholdRule {
  /** What a working value is, completing "must be ...". */
  readonly text: string;
  readonly test: (value: number) => boolean;
}

/** `a` compared with `b`: `['criticalMove', '>', 'highMove']` reads "criticalMove above highMove". */
export type ThresholdOrder<K extends string> = readonly [a: K, op: '>' | '>=' | '<' | '<=', b: K];

export interface ThresholdSpec<T extends Record<keyof T, number>> {
  readonly defaults: T;
  /** Replacements in demo activity, where the simulated market plays its anomalies within minutes. */
  readonly demo?: Partial<T>;
  readonly rules: { readonly [K in keyof T]: ThresholdRule };
  readonly order?: readonly ThresholdOrder<keyof T & string>[];
}

export interface ThresholdProblem {
  readonly key: string;
  readonly message: string;
}

/** The usual rules. Durations are whole milliseconds, as every window and latency is. */
export const threshold = {
  positive: { text: 'a number above 0', test: (v) => v > 0 },
  fraction: { text: 'a fraction above 0 and below 1', test: (v) => v > 0 && v < 1 },
  durationMs: { text: 'a whole number of milliseconds above 0', test: (v) => Number.isInteger(v) && v > 0 },
  above: (min: number): ThresholdRule => ({ text: `a number above ${min}`, test: (v) => v > min }),
  between: (min: number, max: number): ThresholdRule => ({
    text: `a number above ${min} and below ${max}`,
    test: (v) => v > min && v < max,
  }),
  count: (min: number): ThresholdRule => ({
    text: `a whole number of at least ${min}`,
    test: (v) => Number.isInteger(v) && v >= min,
  }),
} satisfies Record<string, ThresholdRule | ((...args: number[]) => ThresholdRule)>;

const HOLDS = {
  '>': (a: number, b: number) => a > b,
  '>=': (a: number, b: number) => a >= b,
  '<': (a: number, b: number) => a < b,
  '<=': (a: number, b: number) => a <= b,
} as const;
const WORDS = { '>': 'above', '>=': 'at least', '<': 'below', '<=': 'at most' } as const;
/** The same ordering read from the other key. */
const FLIPPED = { '>': '<', '>=': '<=', '<': '>', '<=': '>=' } as const;

/**
 * Thresholds from the defaults, the demo replacements when `demo`, and `given` (the operator's,
 * key by key), with every problem: unknown keys, values that are not numbers or break their rule,
 * and broken orderings. An ordering is reported on the key the operator set (setting `highMove`
 * above the default `criticalMove` is a problem with `highMove`), on the first key otherwise.
 */
export function resolveThresholds<T extends Record<keyof T, number>>(
  spec: ThresholdSpec<T>,
  given: Readonly<Record<string, unknown>>,
  demo: boolean,
): { thresholds: T; problems: ThresholdProblem[] } {
  const isKey = (k: string): k is keyof T & string => Object.hasOwn(spec.rules, k);
  const keys = Object.keys(spec.rules).filter(isKey);
  const problems: ThresholdProblem[] = [];
  const set = new Set<string>();
  const refused = new Set<string>();
  const accepted: Partial<Record<keyof T, number>> = {};
  for (const [key, value] of Object.entries(given)) {
    if (!isKey(key)) {
      problems.push({ key, message: `unknown; known: ${keys.join(', ')}` });
    } else if (typeof value !== 'number' || !Number.isFinite(value)) {
      problems.push({ key, message: `must be ${spec.rules[key].text}` });
      refused.add(key);
    } else {
      accepted[key] = value;
      set.add(key);
    }
  }
  const thresholds: T = { ...spec.defaults, ...(demo ? spec.demo : undefined), ...accepted };
  for (const key of keys) {
    if (refused.has(key) || spec.rules[key].test(thresholds[key])) continue;
    problems.push({ key, message: `must be ${spec.rules[key].text}` });
    refused.add(key);
  }
  for (const [a, op, b] of spec.order ?? []) {
    if (refused.has(a) || refused.has(b) || HOLDS[op](thresholds[a], thresholds[b])) continue;
    problems.push(
      set.has(b) && !set.has(a)
        ? { key: b, message: `must be ${WORDS[FLIPPED[op]]} ${a} (${thresholds[a]})` }
        : { key: a, message: `must be ${WORDS[op]} ${b} (${thresholds[b]})` },
    );
  }
  return { thresholds, problems };
}
