import {
  type DocumentNode,
  type GraphQLArgument,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  isEnumType,
  isInputObjectType,
  isListType,
  isNonNullType,
  isScalarType,
  Kind,
  type OperationDefinitionNode,
  TypeInfo,
  type TypeNode,
  typeFromAST,
  valueFromAST,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import { z } from 'zod';

/** One variable of an operation, as a tool or route argument. */
export interface OperationVariable {
  readonly name: string;
  readonly type: GraphQLInputType;
  readonly required: boolean;
  readonly default: unknown;
  /** The description of the field argument the variable is passed to (the schema documents it). */
  readonly description: string | undefined;
  /** The name of that field argument (`assetClass` for `quotes(assetClass: $asset_type)`). */
  readonly argument: string | undefined;
}

/** The variables of every operation in a document, merged by name (same name, same type). */
export function operationVariables(
  schema: GraphQLSchema,
  document: DocumentNode,
): Map<string, OperationVariable> {
  const variables = new Map<string, OperationVariable>();
  const argumentOf = argumentsByVariable(schema, document);
  for (const definition of document.definitions) {
    if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
    for (const v of definition.variableDefinitions ?? []) {
      const name = v.variable.name.value;
      const type = typeFromAST(schema, v.type as Parameters<typeof typeFromAST>[1]) as
        | GraphQLInputType
        | undefined;
      if (!type) throw new Error(`variable $${name} has an unknown type ${printType(v.type)}`);
      const argument = argumentOf.get(name);
      const fallback = v.defaultValue ? valueFromAST(v.defaultValue, type) : argument?.defaultValue;
      const variable: OperationVariable = {
        name,
        type,
        required: isNonNullType(type) && fallback === undefined,
        default: fallback,
        description: argument?.description ?? undefined,
        argument: argument?.name,
      };
      const seen = variables.get(name);
      if (seen && String(seen.type) !== String(type)) {
        throw new Error(`variable $${name} has two types in one document: ${seen.type} and ${type}`);
      }
      if (!seen) variables.set(name, variable);
    }
  }
  return variables;
}

/** The zod schema a variable's values must match (its GraphQL input type, for JSON callers). */
export function zodForInputType(type: GraphQLInputType): z.ZodType {
  if (isNonNullType(type)) return zodForInputType(type.ofType);
  if (isListType(type)) return z.array(zodForInputType(type.ofType as GraphQLInputType));
  if (isEnumType(type)) {
    const values = type.getValues().map((v) => v.name);
    return z.enum(values as [string, ...string[]]);
  }
  if (isInputObjectType(type)) {
    const shape: Record<string, z.ZodType> = {};
    for (const field of Object.values(type.getFields())) {
      let schema = zodForInputType(field.type);
      if (field.description) schema = schema.describe(field.description);
      if (field.defaultValue !== undefined) schema = schema.default(field.defaultValue as never);
      else if (!isNonNullType(field.type)) schema = schema.optional();
      shape[field.name] = schema;
    }
    return z.strictObject(shape);
  }
  if (isScalarType(type)) {
    switch (type.name) {
      case 'String':
      case 'ID':
        return z.string();
      case 'Int':
        return z
          .number()
          .int()
          .min(-(2 ** 31))
          .max(2 ** 31 - 1);
      case 'Float':
        return z.number();
      case 'Boolean':
        return z.boolean();
      case 'DateTime':
        return z.iso.datetime({ offset: true });
      default:
        return z.unknown();
    }
  }
  throw new Error(`no JSON form for the input type ${String(getNamedType(type))}`);
}

/** For each variable, the field argument it is passed to (first use wins). */
function argumentsByVariable(schema: GraphQLSchema, document: DocumentNode): Map<string, GraphQLArgument> {
  const found = new Map<string, GraphQLArgument>();
  const typeInfo = new TypeInfo(schema);
  visit(
    document,
    visitWithTypeInfo(typeInfo, {
      Argument(node) {
        const argument = typeInfo.getArgument();
        if (node.value.kind === Kind.VARIABLE && argument && !found.has(node.value.name.value)) {
          found.set(node.value.name.value, argument);
        }
      },
    }),
  );
  return found;
}

/** The names of the document's operations, in order. */
export function operationNames(document: DocumentNode): string[] {
  return document.definitions
    .filter((d): d is OperationDefinitionNode => d.kind === Kind.OPERATION_DEFINITION)
    .map((d, i) => d.name?.value ?? `#${i}`);
}

function printType(type: TypeNode): string {
  if (type.kind === Kind.NON_NULL_TYPE) return `${printType(type.type)}!`;
  if (type.kind === Kind.LIST_TYPE) return `[${printType(type.type)}]`;
  return type.name.value;
}
