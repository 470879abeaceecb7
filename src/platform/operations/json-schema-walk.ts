/** Walking JSON Schemas by their subschemas, whatever the dialect (json-schema-compact.ts). */

export type JsonValue = null | boolean | number | string | readonly JsonValue[] | JsonObject;
export interface JsonObject {
  readonly [key: string]: JsonValue;
}

/** Keywords whose value is one subschema (`items` may also be a draft-07 tuple: a list). */
export const ONE_SCHEMA = new Set([
  'additionalProperties',
  'items',
  'additionalItems',
  'not',
  'propertyNames',
  'contains',
  'if',
  'then',
  'else',
  'unevaluatedProperties',
  'unevaluatedItems',
]);
/** Keywords whose value is a list of subschemas. */
export const SCHEMA_LIST = new Set(['anyOf', 'oneOf', 'allOf', 'prefixItems']);
/** Keywords whose value maps names to subschemas. */
export const SCHEMA_MAP = new Set([
  'properties',
  'patternProperties',
  '$defs',
  'definitions',
  'dependentSchemas',
]);

/** `node` with `f` applied to each of its direct subschemas (other keywords as they are). */
export function mapSubschemas(node: JsonObject, f: (child: JsonValue) => JsonValue): JsonObject {
  const out: Record<string, JsonValue> = {};
  for (const [key, value] of Object.entries(node)) {
    if (ONE_SCHEMA.has(key)) out[key] = Array.isArray(value) ? value.map(f) : f(value);
    else if (SCHEMA_LIST.has(key) && Array.isArray(value)) out[key] = value.map(f);
    else if (SCHEMA_MAP.has(key) && isObject(value)) {
      out[key] = Object.fromEntries(Object.entries(value).map(([k, v]) => [k, f(v)]));
    } else out[key] = value;
  }
  return out;
}

/** Calls `f` on `node` and every subschema inside it, with a JSON pointer to it. */
export function visit(node: JsonValue, path: string, f: (node: JsonObject, path: string) => void): void {
  if (!isObject(node)) return;
  f(node, path);
  for (const [key, value] of Object.entries(node)) {
    if (ONE_SCHEMA.has(key) || SCHEMA_LIST.has(key)) {
      if (Array.isArray(value)) {
        for (const [i, child] of value.entries()) visit(child, `${path}/${key}/${i}`, f);
      } else visit(value, `${path}/${key}`, f);
    } else if (SCHEMA_MAP.has(key) && isObject(value)) {
      for (const [name, child] of Object.entries(value)) visit(child, `${path}/${key}/${name}`, f);
    }
  }
}

/** Whether `test` holds for `node` or any subschema inside it. */
export function someNode(node: JsonValue, test: (node: JsonObject) => boolean): boolean {
  if (!isObject(node)) return false;
  if (test(node)) return true;
  for (const key in node) {
    const value = node[key]!;
    if (ONE_SCHEMA.has(key) || SCHEMA_LIST.has(key)) {
      if (Array.isArray(value) ? value.some((child) => someNode(child, test)) : someNode(value, test)) {
        return true;
      }
    } else if (SCHEMA_MAP.has(key) && isObject(value)) {
      for (const name in value) if (someNode(value[name]!, test)) return true;
    }
  }
  return false;
}

export function isObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function isDeepEqual(a: JsonValue, b: JsonValue): boolean {
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a) !== Array.isArray(b)) return false;
  const ka = Object.keys(a);
  const kb = Object.keys(b);
  if (ka.length !== kb.length) return false;
  return ka.every((k) =>
    isDeepEqual((a as Record<string, JsonValue>)[k]!, (b as Record<string, JsonValue>)[k]!),
  );
}
