import { AppError } from '../platform/errors.ts';

/** A query that cannot be parsed: where, what was expected, what was found, and a caret snippet. */
export class FkDslSyntaxError extends AppError {
  constructor(
    readonly line: number,
    readonly column: number,
    readonly expected: string,
    readonly found: string,
    source: string,
  ) {
    const snippet = caretSnippet(source, line, column);
    super(
      'FKDSL_SYNTAX_ERROR',
      `line ${line}, column ${column}: expected ${expected}, found ${found}\n${snippet}`,
      400,
      {
        line,
        column,
        expected,
        found,
        snippet,
      },
    );
  }
}

/** A well-formed query that asks for something impossible (limits, unknown universe, bad window). */
export class FkDslQueryError extends AppError {
  constructor(message: string, details?: Record<string, unknown>) {
    super('FKDSL_QUERY_ERROR', message, 400, details);
  }
}

export function caretSnippet(source: string, line: number, column: number): string {
  const text = source.split(/\r?\n/)[line - 1] ?? '';
  return `  ${text}\n  ${' '.repeat(Math.max(0, column - 1))}^`;
}
