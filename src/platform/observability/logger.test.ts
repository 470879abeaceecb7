import { DrizzleQueryError } from 'drizzle-orm';
import { pino } from 'pino';
import postgres from 'postgres';
import { describe, expect, it } from 'vitest';
import { loggerOptions } from './logger.ts';

/**
 * An error from a failed statement carries the statement and its values in several drivers'
 * spellings; a log line keeps what tells an operator what happened (type, SQLSTATE, message of the
 * server, stack) and none of the values.
 */
const SECRET = 'whole-event-json-and-a-password';

function logged(fields: Record<string, unknown>): { text: string; line: Record<string, unknown> } {
  const lines: string[] = [];
  const logger = pino(loggerOptions('info'), { write: (line: string) => void lines.push(line) });
  logger.warn(fields, 'alerts could not fire');
  return { text: lines.join(''), line: JSON.parse(lines[0]!) };
}

/** As postgres.js throws it (with `debug`, its statement fields are enumerable too). */
function postgresError(): Error {
  const error = new postgres.PostgresError({
    message: 'canceling statement due to lock timeout',
    code: '55P03',
    severity: 'ERROR',
    detail: `Failing row contains (${SECRET}).`,
    where: `SQL statement "insert ... values ('${SECRET}')"`,
  } as never);
  Object.assign(error, {
    query: `insert into alert_firings values ($1)`,
    parameters: [SECRET],
    args: [SECRET],
    types: [25],
  });
  return error;
}

/** As PGlite throws it. */
function pgliteError(): Error {
  return Object.assign(new Error('canceling statement due to lock timeout'), {
    code: '55P03',
    severity: 'ERROR',
    query: 'insert into alert_firings values ($1)',
    params: [SECRET],
    queryOptions: { rowMode: 'object' },
    internalQuery: `select '${SECRET}'`,
  });
}

describe('error serialization in logs', () => {
  it("drops drizzle's statement and parameters, and the driver's fields, through the causes", () => {
    for (const cause of [postgresError(), pgliteError()]) {
      const error = new DrizzleQueryError('insert into alert_firings values ($1)', [SECRET], cause);
      const { text, line } = logged({ err: error, eventId: 'e1' });
      expect(text).not.toContain(SECRET);
      expect(text).not.toContain('params');
      expect(line).toMatchObject({
        eventId: 'e1',
        err: {
          type: 'DrizzleQueryError',
          message: expect.stringMatching(/^Failed query/),
          stack: expect.stringContaining('logger.test.ts'),
          cause: { code: '55P03', message: 'canceling statement due to lock timeout' },
        },
      });
    }
  });

  it('drops them from an error logged on its own, under `err` or `error`', () => {
    for (const key of ['err', 'error']) {
      const { text, line } = logged({ [key]: postgresError() });
      expect(text).not.toContain(SECRET);
      expect(line[key]).toMatchObject({ type: 'PostgresError', code: '55P03', severity: 'ERROR' });
    }
    const { text } = logged({ err: pgliteError() });
    expect(text).not.toContain(SECRET);
  });

  it('keeps other fields, plain causes and aggregated errors', () => {
    const error = new AggregateError([pgliteError()], 'two attempts failed', { cause: 'gave up' });
    Object.assign(error, { attempt: 2 });
    const { text, line } = logged({ err: error });
    expect(text).not.toContain(SECRET);
    expect(line.err).toMatchObject({
      type: 'AggregateError',
      message: 'two attempts failed',
      attempt: 2,
      cause: 'gave up',
      aggregateErrors: [{ code: '55P03' }],
    });
  });
});
