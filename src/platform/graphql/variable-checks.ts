import type { GraphQLError } from 'graphql';
import { limitError, requestError } from './graphql-errors.ts';

/**
 * Holds variable values to what literals in a document are held to: no NUL characters in strings
 * or keys, and lists and objects nested at most `maxDepth` deep. The walk is iterative, so a
 * 50,000-deep array is refused rather than overflowing the stack of whatever reads it next
 * (coercion, a JSON scalar, the database driver).
 */
export function checkVariables(
  variables: Readonly<Record<string, unknown>> | null | undefined,
  maxDepth: number,
): GraphQLError | undefined {
  if (!variables || typeof variables !== 'object') return undefined;
  const stack: Array<{ value: unknown; depth: number; field: string }> = Object.entries(variables).map(
    ([name, value]) => ({ value, depth: 0, field: `$${name.slice(0, 64)}` }),
  );
  for (let item = stack.pop(); item !== undefined; item = stack.pop()) {
    const { value, depth, field } = item;
    if (typeof value === 'string') {
      if (value.includes('\u0000')) return nul(field);
    } else if (value !== null && typeof value === 'object') {
      if (depth + 1 > maxDepth) return limitError('depth', maxDepth);
      if (Array.isArray(value)) {
        for (const element of value) stack.push({ value: element, depth: depth + 1, field });
      } else {
        for (const [key, element] of Object.entries(value)) {
          if (key.includes('\u0000')) return nul(field);
          stack.push({ value: element, depth: depth + 1, field });
        }
      }
    }
  }
  if (Object.keys(variables).some((name) => name.includes('\u0000'))) return nul('(variables)');
  return undefined;
}

const nul = (field: string) =>
  requestError('BAD_USER_INPUT', `${field}: must not contain NUL characters`, { field });
