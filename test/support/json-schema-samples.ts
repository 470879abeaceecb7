import fc from 'fast-check';

// biome-ignore lint/suspicious/noExplicitAny: JSON schemas are walked generically.
type Json = any;

/**
 * Sample values for a JSON Schema (the keywords zod writes): mostly valid ones (built from it, bounds
 * included), half of them then broken at one random place (a wrong type, a number out of range, a
 * string too long, an unknown or a missing property).
 */
export function samplesOf(schema: Json): fc.Arbitrary<unknown> {
  return fc
    .tuple(valuesOf(schema, schema, 0), fc.nat(), fc.nat({ max: 2 * BREAKS.length - 1 }))
    .map(([value, at, how]) => (how < BREAKS.length ? broken(value, at, BREAKS[how]!) : value));
}

const REMOVE = Symbol('remove');
const BREAKS: ReadonlyArray<(value: unknown) => unknown> = [
  () => null,
  () => 'x',
  () => 1.5,
  () => 2 ** 60,
  () => -1,
  () => true,
  () => [],
  () => ({}),
  (v) => (typeof v === 'string' ? `${v}${'x'.repeat(5000)}` : 'y'),
  (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) ? { ...v, not_a_field: 1 } : [v]),
  () => REMOVE,
];

/** `value` with the node at (depth-first) position `at` replaced by `change(node)`. */
function broken(value: unknown, at: number, change: (node: unknown) => unknown): unknown {
  const count = countNodes(value);
  let position = at % count;
  const walk = (node: unknown): unknown => {
    if (position-- === 0) return change(node);
    if (Array.isArray(node)) return node.map(walk).filter((v) => v !== REMOVE);
    if (node !== null && typeof node === 'object') {
      const out: Record<string, unknown> = {};
      for (const [key, child] of Object.entries(node)) {
        const next = walk(child);
        if (next !== REMOVE) out[key] = next;
      }
      return out;
    }
    return node;
  };
  const result = walk(value);
  return result === REMOVE ? undefined : result;
}

function countNodes(value: unknown): number {
  if (value === null || typeof value !== 'object') return 1;
  return 1 + Object.values(value).reduce<number>((sum, child) => sum + countNodes(child), 0);
}

const INT32 = 2 ** 31 - 1;

function valuesOf(schema: Json, root: Json, depth: number): fc.Arbitrary<unknown> {
  if (schema === true || schema === undefined || Object.keys(schema).length === 0 || depth > 8) {
    return fc.jsonValue({ maxDepth: 1 });
  }
  if (typeof schema.$ref === 'string') {
    const target =
      schema.$ref === '#'
        ? root
        : schema.$ref
            .split('/')
            .slice(1)
            .reduce((s: Json, k: string) => s[k], root);
    return valuesOf(target, root, depth + 1);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (Array.isArray(schema.enum)) return fc.constantFrom(...schema.enum);
  const branches = schema.anyOf ?? schema.oneOf;
  if (Array.isArray(branches)) return fc.oneof(...branches.map((b: Json) => valuesOf(b, root, depth + 1)));
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type: string) => valuesOf({ ...schema, type }, root, depth)));
  }
  switch (schema.type) {
    case 'null':
      return fc.constant(null);
    case 'boolean':
      return fc.boolean();
    case 'integer':
    case 'number':
      return numbersOf(schema);
    case 'string':
      return stringsOf(schema);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      const maxLength = Math.min(schema.maxItems ?? minLength + 3, minLength + 3);
      return fc.array(valuesOf(schema.items, root, depth + 1), { minLength, maxLength });
    }
    case 'object':
      return objectsOf(schema, root, depth);
    default:
      return fc.jsonValue({ maxDepth: 1 });
  }
}

function numbersOf(schema: Json): fc.Arbitrary<number> {
  const integer = schema.type === 'integer';
  const low =
    schema.minimum ??
    (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + (integer ? 1 : 0) : -1e6);
  const high =
    schema.maximum ??
    (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - (integer ? 1 : 0) : 1e6);
  const inRange = (x: number) =>
    (schema.exclusiveMinimum === undefined || x > schema.exclusiveMinimum) &&
    (schema.exclusiveMaximum === undefined || x < schema.exclusiveMaximum);
  const spread = integer
    ? fc.integer({ min: Math.max(low, -INT32), max: Math.min(high, INT32) })
    : fc.double({ min: low, max: high, noNaN: true, noDefaultInfinity: true });
  // The bounds themselves, where an inexact rewrite of them would show.
  return fc.oneof(spread, fc.constantFrom(low, high)).filter(inRange);
}

function stringsOf(schema: Json): fc.Arbitrary<string> {
  const minLength = schema.minLength ?? 0;
  const maxLength = schema.maxLength ?? minLength + 12;
  if (typeof schema.pattern === 'string') return fc.stringMatching(new RegExp(schema.pattern, 'u'));
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'uri') return fc.webUrl();
  if (schema.format === 'date-time') {
    return fc
      .date({ noInvalidDate: true, min: new Date(0), max: new Date(4e12) })
      .map((d) => d.toISOString());
  }
  return fc.oneof(
    fc.string({ minLength, maxLength: Math.min(maxLength, minLength + 12) }),
    fc.constant('a'.repeat(maxLength)),
  );
}

function objectsOf(schema: Json, root: Json, depth: number): fc.Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {}) as [string, Json][];
  if (properties.length === 0) {
    const values = schema.additionalProperties === false ? undefined : schema.additionalProperties;
    if (values === undefined && schema.additionalProperties === false) return fc.constant({});
    const keys =
      typeof schema.propertyNames?.pattern === 'string'
        ? fc.stringMatching(new RegExp(schema.propertyNames.pattern, 'u'))
        : fc.string({ maxLength: 8 });
    return fc.dictionary(keys, valuesOf(values ?? {}, root, depth + 1), { maxKeys: 3 });
  }
  const required = new Set<string>(schema.required ?? []);
  return fc.record(Object.fromEntries(properties.map(([key, s]) => [key, valuesOf(s, root, depth + 1)])), {
    requiredKeys: properties.map(([key]) => key).filter((key) => required.has(key)),
  });
}
