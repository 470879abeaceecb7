/** A refused query in words: the message, where (line and column) and the API's caret snippet. */
import type { QueryProblem } from './run.ts';

export const PROBLEM_ID = 'fk-query-problem';

export function ProblemNote({ problem, onLocate }: { problem: QueryProblem; onLocate?: () => void }) {
  const where =
    problem.line !== undefined ? `Line ${problem.line}, column ${problem.column ?? 1}` : undefined;
  const title =
    problem.code === 'FKDSL_SYNTAX_ERROR'
      ? 'Syntax error'
      : problem.code === 'FKDSL_QUERY_ERROR'
        ? 'The query was refused'
        : 'The query could not run';
  // The API's message starts with the position, already said in the title.
  const message = problem.message.replace(/^line \d+, column \d+: /, '');
  return (
    <div class="error-note fk-problem" role="alert" id={PROBLEM_ID}>
      <div>
        <strong>{title}</strong>
        {where ? ` at ${where.toLowerCase()}` : ''}: {message}
        {problem.snippet ? <pre class="fk-snippet">{problem.snippet}</pre> : null}
      </div>
      {where && onLocate ? (
        <button type="button" onClick={onLocate}>
          Go to {where.toLowerCase()}
        </button>
      ) : null}
    </div>
  );
}

/** The textarea offset of a 1-based line and column. */
export function offsetOf(text: string, line: number, column: number): number {
  const lines = text.split('\n');
  let offset = 0;
  for (let i = 0; i < Math.min(line - 1, lines.length); i++) offset += lines[i]!.length + 1;
  return Math.min(offset + Math.max(column - 1, 0), text.length);
}
