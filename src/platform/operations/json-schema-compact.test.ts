import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { describe, expect, it } from 'vitest';
import { compactJsonSchema, dialectProblems } from './json-schema-compact.ts';
import type { JsonObject } from './json-schema-walk.ts';

const isoTime: JsonObject = { type: 'string', description: 'ISO 8601 time, UTC' };
const int: JsonObject = { type: 'integer', minimum: -9007199254740991, maximum: 9007199254740991 };
const point: JsonObject = {
  type: 'object',
  properties: {
    at: isoTime,
    count: int,
    note: { anyOf: [{ type: 'string', maxLength: 20 }, { type: 'null' }] },
  },
  required: ['at', 'count', 'note'],
  additionalProperties: false,
};

/** The verdicts of the SDK client's own validator on each value. */
function verdicts(schema: JsonObject, values: readonly unknown[]): boolean[] {
  const validate = new AjvJsonSchemaValidator().getValidator(schema);
  return values.map((value) => validate(value).valid);
}

describe('compactJsonSchema', () => {
  it('drops keywords that allow everything, and keeps those that do not', () => {
    const keyed: JsonObject = {
      type: 'object',
      propertyNames: { pattern: '^[a-z]+$' },
      additionalProperties: { type: 'number' },
    };
    const schema: JsonObject = {
      type: 'object',
      properties: {
        map: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
        list: { type: 'array', items: {} },
        keyed,
      },
      additionalProperties: false,
    };
    expect(compactJsonSchema(schema)).toEqual({
      type: 'object',
      properties: {
        map: { type: 'object' },
        list: { type: 'array' },
        keyed,
      },
      additionalProperties: false,
    });
  });

  it('folds a nullable pair into one schema with null in its type and enum', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        time: { anyOf: [isoTime, { type: 'null' }] },
        state: { anyOf: [{ type: 'string', enum: ['open', 'shut'] }, { type: 'null' }], description: 'Now' },
        box: {
          anyOf: [
            { type: 'object', properties: { x: { type: 'number' } }, required: ['x'] },
            { type: 'null' },
          ],
        },
      },
    };
    expect(compactJsonSchema(schema).properties).toEqual({
      time: { type: ['string', 'null'], description: 'ISO 8601 time, UTC' },
      state: { type: ['string', 'null'], enum: ['open', 'shut', null], description: 'Now' },
      box: { type: ['object', 'null'], properties: { x: { type: 'number' } }, required: ['x'] },
    });
  });

  it('leaves a nullable pair whose other branch has a keyword that would pass null', () => {
    const others: JsonObject[] = [
      { type: 'string', const: 'x' },
      { type: 'string', not: { const: 'x' } },
      { anyOf: [{ type: 'string' }, { type: 'number' }] },
      { $ref: '#/$defs/x' },
      { type: 'string', description: 'one' },
    ];
    for (const other of others) {
      const pair = { anyOf: [other, { type: 'null' }], description: 'another' };
      expect(compactJsonSchema({ type: 'object', properties: { p: pair } }).properties).toEqual({ p: pair });
    }
  });

  it('writes a recurring shape once under $defs, named after the property it describes', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: { first: point, last: point, all: { type: 'array', items: point } },
      required: ['first', 'last', 'all'],
      additionalProperties: false,
    };
    const compact = compactJsonSchema(schema);
    expect(compact.properties).toEqual({
      first: { $ref: '#/$defs/first' },
      last: { $ref: '#/$defs/first' },
      all: { type: 'array', items: { $ref: '#/$defs/first' } },
    });
    const defs = compact.$defs as Record<string, JsonObject>;
    expect(defs.first).toMatchObject({ type: 'object', required: ['at', 'count', 'note'] });
    expect(JSON.stringify(compact).length).toBeLessThan(JSON.stringify(schema).length / 2);
    expect(dialectProblems(compact)).toEqual([]);
  });

  it('shares a shape only when that makes the schema shorter', () => {
    const schema = { type: 'object', properties: { a: { type: 'string' }, b: { type: 'string' } } };
    expect(compactJsonSchema(schema)).toEqual(schema);
    const described: JsonObject = { type: 'object', properties: { a: isoTime, b: isoTime, c: isoTime } };
    expect(compactJsonSchema(described)).toEqual({
      type: 'object',
      properties: { a: { $ref: '#/$defs/a' }, b: { $ref: '#/$defs/a' }, c: { $ref: '#/$defs/a' } },
      $defs: { a: isoTime },
    });
  });

  it('adds no reference when told not to', () => {
    const schema = { type: 'object', properties: { first: point, last: point } };
    const compact = compactJsonSchema(schema, { definitions: false });
    expect(JSON.stringify(compact)).not.toContain('$ref');
    expect((compact.properties as Record<string, JsonObject>).first!.properties).toMatchObject({
      note: { type: ['string', 'null'], maxLength: 20 },
    });
  });

  it('keeps definitions it finds, and leaves a schema with pointers into itself unshared', () => {
    const withDefs: JsonObject = {
      type: 'object',
      properties: { a: { $ref: '#/$defs/a' }, b: point, c: point },
      $defs: { a: { type: 'number' } },
    };
    const compact = compactJsonSchema(withDefs);
    expect(compact.$defs).toMatchObject({ a: { type: 'number' }, b: { type: 'object' } });
    const pointer: JsonObject = {
      type: 'object',
      properties: { a: point, b: point, c: { $ref: '#/properties/a' } },
    };
    expect(JSON.stringify(compactJsonSchema(pointer))).not.toContain('$defs');
  });

  it('accepts and rejects the same values as the schema it rewrites', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        first: point,
        rest: { type: 'array', items: point },
        tags: { type: 'object', propertyNames: { type: 'string' }, additionalProperties: {} },
        state: { anyOf: [{ type: 'string', enum: ['open', 'shut'] }, { type: 'null' }] },
      },
      required: ['first', 'rest', 'state'],
      additionalProperties: false,
    };
    const good = { at: '2025-01-01T00:00:00Z', count: 3, note: null };
    const values = [
      { first: good, rest: [], state: null },
      { first: good, rest: [good, { ...good, note: 'hi' }], tags: { a: 1, b: [null] }, state: 'open' },
      { first: good, rest: [], state: 'closed' },
      { first: good, rest: [{ ...good, count: 1.5 }], state: null },
      { first: good, rest: [{ ...good, count: 2 ** 60 }], state: null },
      { first: { ...good, note: 'x'.repeat(21) }, rest: [], state: null },
      { first: { ...good, extra: 1 }, rest: [], state: null },
      { first: { at: null, count: 1, note: null }, rest: [], state: null },
      { first: good, rest: [], state: null, more: true },
      { first: good, rest: null, state: null },
      { first: good, tags: [], rest: [], state: null },
      null,
    ];
    const compact = compactJsonSchema(schema);
    expect(JSON.stringify(compact)).toContain('$ref');
    const before = verdicts(schema, values);
    expect(before.filter(Boolean)).toHaveLength(2);
    expect(verdicts(compact, values)).toEqual(before);
  });

  it('leaves a schema that evaluates properties as it is', () => {
    const schema: JsonObject = {
      type: 'object',
      allOf: [{ properties: { a: { type: 'object', propertyNames: { type: 'string' } } } }],
      unevaluatedProperties: false,
    };
    expect(compactJsonSchema(schema)).toBe(schema);
  });
});

describe('dialectProblems', () => {
  it('names what reads differently in draft-07 and 2020-12', () => {
    expect(
      dialectProblems({
        $schema: 'http://json-schema.org/draft-07/schema#',
        type: 'object',
        properties: {
          pair: { type: 'array', prefixItems: [{ type: 'number' }, { type: 'number' }] },
          tuple: { type: 'array', items: [{ type: 'number' }] },
          ref: { $ref: '#/$defs/x', maxLength: 3 },
        },
      }),
    ).toEqual([
      '#: $schema (the listing is read as 2020-12)',
      '#/properties/pair: prefixItems',
      '#/properties/tuple: items as a list (a tuple)',
      '#/properties/ref: $ref beside maxLength',
    ]);
  });

  it('accepts references with annotations beside them, and $defs', () => {
    expect(
      dialectProblems({
        type: 'object',
        properties: { a: { $ref: '#/$defs/a', description: 'The a' } },
        $defs: { a: { type: 'number' } },
      }),
    ).toEqual([]);
  });
});
