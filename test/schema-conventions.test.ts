import {
  buildSchema as buildSdl,
  type GraphQLField,
  type GraphQLInputField,
  type GraphQLNamedType,
  type GraphQLObjectType,
  type GraphQLSchema,
  isEnumType,
  isInputObjectType,
  isInterfaceType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { buildSchema } from '../src/schema.ts';

/**
 * The conventions clients rely on, checked on the built schema: every type, field, argument and enum
 * value says what it is; enum values are UPPER_CASE; an object type either has an `id` (an entity a
 * normalised cache such as Apollo's InMemoryCache or urql's Graphcache can key) or says in its
 * description that it is a value object (so clients know to leave it unnormalised).
 */

const UPPER_CASE = /^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/;

function violations(schema: GraphQLSchema): string[] {
  const problems: string[] = [];
  const roots = new Set(
    [schema.getQueryType(), schema.getMutationType(), schema.getSubscriptionType()].filter(Boolean),
  );
  const undocumented = (what: string, description: string | null | undefined) => {
    if (!description?.trim()) problems.push(`${what} has no description`);
  };

  for (const type of Object.values(schema.getTypeMap()) as GraphQLNamedType[]) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (!roots.has(type as GraphQLObjectType)) undocumented(`type ${type.name}`, type.description);

    if (isEnumType(type)) {
      for (const value of type.getValues()) {
        undocumented(`enum value ${type.name}.${value.name}`, value.description);
        if (!UPPER_CASE.test(value.name))
          problems.push(`enum value ${type.name}.${value.name} is not UPPER_CASE`);
      }
    }

    if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) {
      const fields = Object.values(type.getFields()) as (
        | GraphQLField<unknown, unknown>
        | GraphQLInputField
      )[];
      for (const field of fields) {
        const coordinate = `${type.name}.${field.name}`;
        undocumented(`field ${coordinate}`, field.description);
        if ('args' in field) {
          for (const arg of field.args) undocumented(`argument ${coordinate}(${arg.name})`, arg.description);
        }
      }
    }

    if (isObjectType(type) && !roots.has(type)) {
      const id = type.getFields().id;
      if (!id && !/value object/i.test(type.description ?? '')) {
        problems.push(`type ${type.name} has no id and does not say it is a value object`);
      }
      if (id && String(id.type) !== 'ID!')
        problems.push(`type ${type.name} has an id of type ${id.type}, not ID!`);
    }
  }
  return problems;
}

describe('schema conventions', () => {
  it('holds for the built schema', () => {
    expect(violations(buildSchema())).toEqual([]);
  });

  it('names each kind of violation (the check is real)', () => {
    const bad = buildSdl(/* GraphQL */ `
      "Read operations."
      type Query {
        "A thing."
        thing(which: ID): Thing
        "A value."
        value: Point
      }
      "A thing."
      type Thing {
        "Stable id."
        id: ID!
        kind: Kind
      }
      "A point."
      type Point {
        "Metres."
        x: Float
      }
      "A named thing."
      type Named {
        "Its name."
        id: String!
      }
      enum Kind {
        "Small."
        small
        BIG
      }
    `);
    expect(violations(bad).sort()).toEqual(
      [
        'argument Query.thing(which) has no description',
        'field Thing.kind has no description',
        'type Kind has no description',
        'enum value Kind.small is not UPPER_CASE',
        'enum value Kind.BIG has no description',
        'type Point has no id and does not say it is a value object',
        'type Named has an id of type String!, not ID!',
      ].sort(),
    );
  });

  it('accepts a value object that says so', () => {
    const good = buildSdl(/* GraphQL */ `
      "Read operations."
      type Query {
        "A value."
        value: Point
      }
      "A point. Value object: not normalised."
      type Point {
        "Metres."
        x: Float
      }
    `);
    expect(violations(good)).toEqual([]);
  });
});
