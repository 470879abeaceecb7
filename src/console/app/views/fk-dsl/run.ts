/**
 * Calls that keep what `apiError` drops: a syntax error's line, column and caret snippet live in
 * the GraphQL error's extensions, and the editor shows them as they are.
 */
import type { CombinedError } from '@urql/core';
import { type ApiError, api, apiError } from '../../api.ts';

export interface QueryProblem extends ApiError {
  readonly line?: number;
  readonly column?: number;
  readonly expected?: string;
  readonly found?: string;
  readonly snippet?: string;
}

export type Outcome<T> = { ok: true; data: T } | { ok: false; problem: QueryProblem };

function problem(error: CombinedError): QueryProblem {
  const base = apiError(error);
  const ext = (error.graphQLErrors?.[0]?.extensions ?? {}) as Record<string, unknown>;
  const text = (key: string) => (typeof ext[key] === 'string' ? (ext[key] as string) : undefined);
  const num = (key: string) => (typeof ext[key] === 'number' ? (ext[key] as number) : undefined);
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries({
    line: num('line'),
    column: num('column'),
    expected: text('expected'),
    found: text('found'),
    snippet: text('snippet'),
  })) {
    if (value !== undefined) out[key] = value;
  }
  // The message repeats the snippet after its first line; the snippet is shown on its own.
  if (out.snippet) out.message = base.message.split('\n')[0];
  return out as unknown as QueryProblem;
}

export async function call<T>(
  kind: 'query' | 'mutation',
  document: string,
  variables: Record<string, unknown>,
): Promise<Outcome<T>> {
  const client = api();
  const result = await (kind === 'query'
    ? client.query(document, variables)
    : client.mutation(document, variables)
  ).toPromise();
  if (result.error) return { ok: false, problem: problem(result.error) };
  return { ok: true, data: result.data as T };
}
