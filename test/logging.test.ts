/**
 * What reaches the error log: a caller's mistake (an unknown id, a refused argument) is answered
 * with its code and logged at debug; error level is kept for what an operator must look at.
 */
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loggerOptions } from '../src/platform/observability/logger.ts';
import { createTestApp, type TestApp } from './support/app.ts';

describe('GraphQL error logging', () => {
  const lines: Array<{ level: number; msg: string }> = [];
  let t: TestApp;

  beforeAll(async () => {
    const logger = pino(loggerOptions('debug'), {
      write: (line: string) => void lines.push(JSON.parse(line)),
    });
    t = await createTestApp({ listen: true, overrides: { logger } });
  });
  afterAll(() => t?.close());

  it('logs domain errors from queries and mutations at debug, not error', async () => {
    const ask = (query: string) =>
      fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      }).then((r) => r.json());
    const unknown = await ask('{ analysisSession(id: "no-such-session") { id } }');
    expect(unknown.errors[0].extensions.code).toBe('NOT_FOUND');
    const refused = await ask(
      'mutation { createAnalysisSession(assets: [], sessionType: EQUITY) { capped } }',
    );
    expect(refused.errors[0].extensions.code).toBe('BAD_USER_INPUT');
    const errors = lines.filter((l) => l.level >= 50);
    expect(errors).toEqual([]);
    expect(lines.some((l) => l.level === 20 && /no-such-session/.test(l.msg))).toBe(true);
  });
});
