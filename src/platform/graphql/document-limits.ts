import {
  type ASTNode,
  type DocumentNode,
  type GraphQLError,
  Kind,
  Lexer,
  type ParseOptions,
  parse,
  type SelectionSetNode,
  Source,
  TokenKind,
  type ValidationRule,
} from 'graphql';
import { boundMessage, limitError, requestError, withMessage } from './graphql-errors.ts';

export interface DocumentLimits {
  /** Lexical tokens in a document (comments and whitespace excluded). */
  readonly maxTokens: number;
  /** Aliased fields in an operation, each fragment counted where it is spread. */
  readonly maxAliases: number;
  /** Nesting of fields (through fragments), and of list and object values. */
  readonly maxDepth: number;
  /** Fields in an operation, each fragment counted where it is spread: one point per field. */
  readonly maxCost: number;
}

/**
 * Parses within the token limit. The document is lexed first, counting tokens and bracket
 * nesting, so an oversized or deeply nested document is refused after at most `maxTokens` tokens
 * and before the (recursive) parser sees it: the parser would otherwise overflow the stack on a
 * few thousand nested brackets, or spend seconds building a tree of a million aliases.
 */
export function parseWithinLimits(
  source: string | Source,
  options: ParseOptions | undefined,
  limits: DocumentLimits,
): DocumentNode {
  const body = typeof source === 'string' ? source : source.body;
  const problem = scan(body, limits);
  if (problem) throw problem;
  try {
    return parse(source, { ...options, maxTokens: limits.maxTokens });
  } catch (error) {
    // By name: graphql's CJS and ESM builds each have a GraphQLError class.
    if ((error as Error)?.name === 'GraphQLError') {
      const parseError = error as GraphQLError;
      throw withMessage(parseError, boundMessage(parseError.message));
    }
    // A stack overflow the scan did not foresee is still the document's fault, not the server's.
    if (error instanceof RangeError) throw limitError('depth', limits.maxDepth);
    throw error;
  }
}

/** Bracket nesting the scan allows: a field's depth plus the depth of a value in its arguments. */
const nestingBound = (limits: DocumentLimits) => 2 * limits.maxDepth + 2;

function scan(body: string, limits: DocumentLimits): GraphQLError | undefined {
  const lexer = new Lexer(new Source(body));
  const maxNesting = nestingBound(limits);
  let tokens = 0;
  let nesting = 0;
  try {
    for (let token = lexer.advance(); token.kind !== TokenKind.EOF; token = lexer.advance()) {
      if (++tokens > limits.maxTokens) return limitError('tokens', limits.maxTokens);
      if (token.kind === TokenKind.BRACE_L || token.kind === TokenKind.BRACKET_L) {
        if (++nesting > maxNesting) return limitError('depth', limits.maxDepth);
      } else if (token.kind === TokenKind.BRACE_R || token.kind === TokenKind.BRACKET_R) {
        nesting--;
      }
    }
  } catch {
    // A lexical error: the parser reports it with its position.
  }
  return undefined;
}

interface Stats {
  readonly cost: number;
  readonly aliases: number;
  readonly depth: number;
}

const NONE: Stats = { cost: 0, aliases: 0, depth: 0 };

/**
 * Aliases, depth and cost of every operation, fragments expanded where they are spread (each
 * fragment measured once, so the check is linear in the document even when the expansion is
 * exponential). Introspection fields count like any other: `__typename` and `__schema` are work too.
 * Also holds list and object values to the depth limit and refuses NUL characters in strings
 * (no database or protocol downstream accepts them).
 */
export function documentLimitsRule(limits: DocumentLimits): ValidationRule {
  return (context) => {
    const fragments = new Map<string, Stats | null>();
    const fragmentStats = (name: string): Stats => {
      const known = fragments.get(name);
      if (known !== undefined) return known ?? NONE; // null: a cycle, reported by NoFragmentCycles
      const fragment = context.getFragment(name);
      if (!fragment) return NONE;
      fragments.set(name, null);
      const stats = measure(fragment.selectionSet, fragmentStats);
      fragments.set(name, stats);
      return stats;
    };
    let valueDepth = 0;
    let valueDepthReported = false;
    const enterValue = () => {
      if (++valueDepth > limits.maxDepth && !valueDepthReported) {
        valueDepthReported = true;
        context.reportError(limitError('depth', limits.maxDepth));
      }
    };
    const leaveValue = () => {
      valueDepth--;
    };
    return {
      OperationDefinition(node) {
        const stats = measure(node.selectionSet, fragmentStats);
        if (stats.aliases > limits.maxAliases)
          context.reportError(limitError('aliases', limits.maxAliases, stats.aliases));
        if (stats.depth > limits.maxDepth)
          context.reportError(limitError('depth', limits.maxDepth, stats.depth));
        if (stats.cost > limits.maxCost) context.reportError(limitError('cost', limits.maxCost, stats.cost));
      },
      ListValue: { enter: enterValue, leave: leaveValue },
      ObjectValue: { enter: enterValue, leave: leaveValue },
      StringValue(node, _key, parent, _path, ancestors) {
        if (!node.value.includes('\u0000')) return;
        const field = fieldOf([...ancestors, parent as ASTNode]);
        context.reportError(
          requestError('BAD_USER_INPUT', `${field}: must not contain NUL characters`, { field }),
        );
      },
    };
  };
}

function measure(set: SelectionSetNode, fragmentStats: (name: string) => Stats): Stats {
  let cost = 0;
  let aliases = 0;
  let depth = 0;
  for (const selection of set.selections) {
    let inner: Stats;
    if (selection.kind === Kind.FIELD) {
      inner = selection.selectionSet ? measure(selection.selectionSet, fragmentStats) : NONE;
      cost += 1;
      if (selection.alias) aliases += 1;
      depth = Math.max(depth, inner.depth + 1);
    } else {
      inner =
        selection.kind === Kind.INLINE_FRAGMENT
          ? measure(selection.selectionSet, fragmentStats)
          : fragmentStats(selection.name.value);
      depth = Math.max(depth, inner.depth);
    }
    cost += inner.cost;
    aliases += inner.aliases;
  }
  return { cost, aliases, depth };
}

/** The argument (or variable default) a value belongs to, for error messages. */
function fieldOf(ancestors: ReadonlyArray<ASTNode | ReadonlyArray<ASTNode>>): string {
  for (let i = ancestors.length - 1; i >= 0; i--) {
    const node = ancestors[i] as ASTNode;
    if (node.kind === Kind.ARGUMENT) return node.name.value;
    if (node.kind === Kind.VARIABLE_DEFINITION) return `$${node.variable.name.value}`;
  }
  return '(document)';
}
