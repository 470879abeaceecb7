/**
 * The rules `promtool check metrics` applies to an exposition (Prometheus client_golang's promlint),
 * for machines where promtool is not installed; tests run promtool too when it is.
 */

interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

interface Family {
  readonly name: string;
  type: string | undefined;
  help: string | undefined;
  readonly labelNames: Set<string>;
}

const TYPES = ['counter', 'gauge', 'histogram', 'summary', 'gauge_histogram'];

const BASE_UNITS: Readonly<Record<string, string>> = {
  amperes: 'amperes',
  bytes: 'bytes',
  celsius: 'celsius',
  grams: 'grams',
  joules: 'joules',
  kelvin: 'kelvin',
  meters: 'meters',
  metres: 'metres',
  seconds: 'seconds',
  volts: 'volts',
  minutes: 'seconds',
  hours: 'seconds',
  days: 'seconds',
  weeks: 'seconds',
  kelvins: 'kelvin',
  fahrenheit: 'celsius',
  rankine: 'celsius',
  inches: 'meters',
  yards: 'meters',
  miles: 'meters',
  bits: 'bytes',
  calories: 'joules',
  pounds: 'grams',
  ounces: 'grams',
};
const UNIT_PREFIXES = [
  'pico',
  'nano',
  'micro',
  'milli',
  'centi',
  'deci',
  'deca',
  'hecto',
  'kilo',
  'kibi',
  'mega',
  'mibi',
  'giga',
  'gibi',
  'tera',
  'tebi',
  'peta',
  'pebi',
];
const UNIT_ABBREVIATIONS = ['s', 'ms', 'us', 'ns', 'sec', 'b', 'kb', 'mb', 'gb', 'tb', 'pb', 'm', 'h', 'd'];
const CAMEL_CASE = /[a-z][A-Z]/;

/** Samples of a Prometheus text exposition (escapes in label values are kept as written). */
export function parseSamples(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const match = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{(.*)\})?\s+(\S+)/.exec(line);
    if (!match) throw new Error(`not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const pair of (match[3] ?? '').matchAll(/([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g)) {
      labels[pair[1]!] = pair[2]!;
    }
    samples.push({ name: match[1]!, labels, value: Number(match[4]) });
  }
  return samples;
}

/** The value of the sample with this name and exactly these labels (among others), or undefined. */
export function sampleValue(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): number | undefined {
  return parseSamples(text).find(
    (s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v),
  )?.value;
}

/** Problems promlint would report, as `name: problem` lines (empty when the exposition is clean). */
export function lintMetrics(text: string): string[] {
  const families = new Map<string, Family>();
  const family = (name: string) => {
    let found = families.get(name);
    if (!found) {
      found = { name, type: undefined, help: undefined, labelNames: new Set() };
      families.set(name, found);
    }
    return found;
  };
  for (const line of text.split('\n')) {
    const help = /^# HELP (\S+) ?(.*)$/.exec(line);
    if (help) family(help[1]!).help = help[2];
    const type = /^# TYPE (\S+) (\S+)$/.exec(line);
    if (type) family(type[1]!).type = type[2];
  }
  for (const sample of parseSamples(text)) {
    const owner =
      families.get(sample.name) ??
      families.get(sample.name.replace(/_(bucket|sum|count|total|created)$/, ''));
    if (!owner) family(sample.name).type ??= 'untyped';
    for (const label of Object.keys(sample.labels)) (owner ?? family(sample.name)).labelNames.add(label);
  }
  return [...families.values()].flatMap((f) => lintFamily(f).map((problem) => `${f.name}: ${problem}`));
}

function lintFamily(f: Family): string[] {
  const problems: string[] = [];
  const { name } = f;
  const type = f.type ?? 'untyped';
  const lower = name.toLowerCase();
  if (!f.help) problems.push('no help text');
  const total = name.endsWith('_total');
  if (type === 'counter' && !total) problems.push('counter metrics should have "_total" suffix');
  if (type !== 'untyped' && type !== 'counter' && total) {
    problems.push('non-counter metrics should not have "_total" suffix');
  }
  if (type !== 'untyped' && type !== 'gauge' && name.endsWith('_timestamp_seconds')) {
    problems.push('non-gauge metrics should not have "_timestamp_seconds" suffix');
  }
  if (CAMEL_CASE.test(name)) problems.push("metric names should be written in 'snake_case' not 'camelCase'");
  for (const label of f.labelNames) {
    if (CAMEL_CASE.test(label))
      problems.push("label names should be written in 'snake_case' not 'camelCase'");
  }
  if (name.includes(':')) problems.push("metric names should not contain ':'");
  for (const t of TYPES) {
    if (lower.includes(`_${t}_`) || lower.endsWith(`_${t}`))
      problems.push(`metric name should not include type '${t}'`);
  }
  for (const abbreviation of UNIT_ABBREVIATIONS) {
    if (lower.includes(`_${abbreviation}_`) || lower.endsWith(`_${abbreviation}`)) {
      problems.push('metric names should not contain abbreviated units');
    }
  }
  const unit = unitOf(name);
  if (unit && unit.unit !== unit.base)
    problems.push(`use base unit "${unit.base}" instead of "${unit.unit}"`);
  if (type !== 'untyped') {
    const histogram = type === 'histogram';
    const summary = type === 'summary';
    if (!histogram && name.endsWith('_bucket'))
      problems.push('non-histogram metrics should not have "_bucket" suffix');
    if (!histogram && !summary && /_(count|sum)$/.test(name)) {
      problems.push('non-histogram and non-summary metrics should not have "_count" or "_sum" suffix');
    }
    if (!histogram && f.labelNames.has('le'))
      problems.push('non-histogram metrics should not have "le" label');
    if (!summary && f.labelNames.has('quantile'))
      problems.push('non-summary metrics should not have "quantile" label');
  }
  return problems;
}

function unitOf(name: string): { unit: string; base: string } | undefined {
  for (const part of name.split('_')) {
    const base = BASE_UNITS[part];
    if (base) return { unit: part, base };
    for (const prefix of UNIT_PREFIXES) {
      const rest = part.startsWith(prefix) ? BASE_UNITS[part.slice(prefix.length)] : undefined;
      if (rest) return { unit: part, base: rest };
    }
  }
  return undefined;
}
