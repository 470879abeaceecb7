/**
 * Compact JSON Schemas for the tool listings (MCP `tools/list`, `GET /mcp/tools`).
 *
 * What zod writes is exact but verbose: a shape used in several places is written out at each one
 * (a session's recent query and again in its history, the same described time string in every
 * part of a quote), nullable values are `anyOf` pairs, and maps of anything carry keywords that
 * allow everything anyway. A client reads every byte of it, and the MCP SDK's client compiles
 * every output schema when it lists the tools. `compactJsonSchema` rewrites a schema into one that
 * accepts exactly the same values:
 *
 * - keywords that constrain nothing are dropped (`propertyNames: {type: string}`: object keys are
 *   strings; `additionalProperties: {}` and `items: {}`: anything is allowed);
 * - `anyOf: [X, {type: null}]` becomes X with `null` added to its `type` (and `enum`), when every
 *   other keyword of X applies to one type only, so that `null` passes them all as before;
 * - a subschema that recurs inside one schema is written once under `$defs` and referenced with
 *   `$ref` wherever it occurs, when that makes the schema shorter. References stay inside the
 *   schema: a listing has no document that several tools could share.
 *
 * `dialectProblems` says what in a schema would read differently in JSON Schema draft-07 (the
 * MCP SDK's client) and 2020-12 (the MCP specification); the listings publish none such.
 */
import { hoistRepeats } from './json-schema-defs.ts';
import {
  isDeepEqual,
  isObject,
  type JsonObject,
  type JsonValue,
  mapSubschemas,
  someNode,
  visit,
} from './json-schema-walk.ts';

/** Keywords that say something to readers and nothing to validation. */
const ANNOTATIONS = new Set([
  'title',
  'description',
  'default',
  'examples',
  'deprecated',
  'readOnly',
  'writeOnly',
  '$comment',
]);

/**
 * Keywords that apply to values of one JSON type only (a value of another type passes them): the
 * keywords a schema may have for `null` to be added to its `type` without passing anything else.
 */
const TYPE_SPECIFIC = new Set([
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'contentEncoding',
  'contentMediaType',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'properties',
  'required',
  'additionalProperties',
  'patternProperties',
  'propertyNames',
  'minProperties',
  'maxProperties',
  'items',
  'minItems',
  'maxItems',
  'uniqueItems',
  'contains',
]);

/**
 * Keywords whose meaning differs between draft-07 and 2020-12 (or that one of them lacks). The MCP
 * SDK's client validates with draft-07 rules; the MCP specification reads a schema without
 * `$schema` as 2020-12. A listed schema must use none of them.
 */
const DIALECT_SPECIFIC = new Set([
  'prefixItems',
  'additionalItems',
  'dependencies',
  'dependentSchemas',
  'dependentRequired',
  'minContains',
  'maxContains',
  'contentSchema',
  'unevaluatedProperties',
  'unevaluatedItems',
  '$recursiveRef',
  '$recursiveAnchor',
  '$dynamicRef',
  '$dynamicAnchor',
  '$anchor',
  '$vocabulary',
]);

export interface CompactOptions {
  /** Write recurring subschemas once under `$defs` (default true); false: no `$ref` is added. */
  readonly definitions?: boolean;
}

/** The same set of valid values as `schema`, written shorter (see the file comment). */
export function compactJsonSchema(schema: JsonObject, options: CompactOptions = {}): JsonObject {
  // Dropping `additionalProperties: {}` would change what `unevaluatedProperties` sees: such a
  // schema is left as it is (no listed schema has one; `dialectProblems` refuses them).
  if (someNode(schema, (node) => 'unevaluatedProperties' in node || 'unevaluatedItems' in node))
    return schema;
  const simple = simplify(schema) as JsonObject;
  return options.definitions === false ? simple : hoistRepeats(simple);
}

/**
 * Why `schema` would not validate the same values under draft-07 and 2020-12 (empty when it
 * would): a dialect-specific keyword, a tuple `items`, or a `$ref` beside validating keywords
 * (draft-07 ignores a reference's siblings; 2020-12 applies them).
 */
export function dialectProblems(schema: JsonObject): string[] {
  const problems: string[] = [];
  visit(schema, '#', (node, path) => {
    for (const key of Object.keys(node)) {
      if (DIALECT_SPECIFIC.has(key)) problems.push(`${path}: ${key}`);
    }
    if (Array.isArray(node.items)) problems.push(`${path}: items as a list (a tuple)`);
    if ('$schema' in node) problems.push(`${path}: $schema (the listing is read as 2020-12)`);
    if ('$ref' in node) {
      const siblings = Object.keys(node).filter((k) => k !== '$ref' && k !== '$defs' && !ANNOTATIONS.has(k));
      if (siblings.length) problems.push(`${path}: $ref beside ${siblings.join(', ')}`);
    }
  });
  return problems;
}

// ---- simplification ---------------------------------------------------------------------------

function simplify(value: JsonValue): JsonValue {
  if (!isObject(value)) return value;
  const node: Record<string, JsonValue> = { ...mapSubschemas(value, simplify) };
  if (allowsAnything(node.additionalProperties)) delete node.additionalProperties;
  if (allowsAnything(node.items)) delete node.items;
  if (allowsAnything(node.propertyNames) || isExactly(node.propertyNames, { type: 'string' })) {
    delete node.propertyNames;
  }
  return foldNullable(node);
}

/**
 * `{anyOf: [X, {type: null}], ...annotations}` -> X with `null` in its `type` and `enum`. Exact when
 * X has a `type` and otherwise only keywords that apply to one type: `null` then passes every one
 * of them, and a value that is not `null` meets the same keywords as before.
 */
function foldNullable(node: Record<string, JsonValue>): JsonValue {
  const { anyOf, ...outer } = node;
  if (!Array.isArray(anyOf) || anyOf.length !== 2) return node;
  if (!Object.keys(outer).every((k) => ANNOTATIONS.has(k))) return node;
  const nullAt = anyOf.findIndex((branch) => isExactly(branch, { type: 'null' }));
  const other = anyOf[1 - nullAt];
  if (nullAt < 0 || !isObject(other)) return node;
  const types = typeof other.type === 'string' ? [other.type] : other.type;
  if (!Array.isArray(types) || !types.every((t) => typeof t === 'string')) return node;
  const foldable = Object.keys(other).every(
    (k) => k === 'type' || k === 'enum' || TYPE_SPECIFIC.has(k) || ANNOTATIONS.has(k),
  );
  if (!foldable || (other.enum !== undefined && !Array.isArray(other.enum))) return node;
  // Two different annotations of the same name (the use's and the shape's) would lose one.
  for (const k of Object.keys(outer)) {
    if (k in other && !isDeepEqual(outer[k]!, other[k]!)) return node;
  }
  const folded: Record<string, JsonValue> = {
    ...other,
    ...outer,
    type: types.includes('null') ? types : [...types, 'null'],
  };
  if (Array.isArray(other.enum) && !other.enum.includes(null)) folded.enum = [...other.enum, null];
  return folded;
}

function allowsAnything(value: JsonValue | undefined): boolean {
  return value === true || (isObject(value) && Object.keys(value).length === 0);
}

function isExactly(value: JsonValue | undefined, expected: JsonObject): boolean {
  return value !== undefined && isDeepEqual(value, expected);
}
