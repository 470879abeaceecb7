import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type GraphQLEnumType, isEnumType } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exposedErrorCode } from '../src/error-codes.graphql.ts';
import { modules } from '../src/modules.ts';
import { PLATFORM_ERRORS } from '../src/platform/errors.ts';
import { buildSchema } from '../src/schema.ts';
import { createTestApp, type TestApp } from './support/app.ts';

/**
 * `enum ErrorCode` is the one list of error codes: built from the error tables, it must hold every
 * code of every table, and every code the source can emit must be in a table. The source is scanned
 * for the places a code is written: a `code: '...'` property, and the first argument of the error
 * classes and helpers that take one.
 */

const src = fileURLToPath(new URL('../src', import.meta.url));

/**
 * `code` properties that are not error codes, each with why. Keyed by file (a folder ends in `/`),
 * so a new vocabulary is added here deliberately, never picked up by accident.
 */
const OTHER_VOCABULARIES: Readonly<Record<string, string>> = {
  'market-data/markets.ts': 'market codes (US, UK, ...)',
  'market-data/providers/simulated/macro.ts': 'macro series codes (CPI, GDP, ...)',
  'alerts/delivery/pinned-http.ts':
    "Node's DNS error codes (ENOTFOUND), which the HTTP client reads from a lookup",
  'market-data/streams/':
    "the price streams' `error_code` messages, a vocabulary of their own kept from the original (SUBSCRIPTION_ERROR, INVALID_JSON, ...)",
};

/** Where a code is written: a `code:` property, or the code argument of an error class or helper. */
const CODE_SITES = [
  /\bcode:\s*'([A-Z][A-Z0-9_]*)'/g,
  /\b(?:super|AppError|StatsError|requestError|errorBody|refusal|onRefused|guardedPhase|fail)\(\s*'([A-Z][A-Z0-9_]*)'/g,
  /\bwithCode\([^;]*?,\s*'([A-Z][A-Z0-9_]*)'\)/g,
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

function codesInSource(): Map<string, string[]> {
  const found = new Map<string, string[]>();
  for (const file of sourceFiles(src)) {
    const rel = relative(src, file).split('\\').join('/');
    if (Object.keys(OTHER_VOCABULARIES).some((v) => (v.endsWith('/') ? rel.startsWith(v) : rel === v)))
      continue;
    const text = readFileSync(file, 'utf8');
    for (const site of CODE_SITES) {
      for (const match of text.matchAll(site)) {
        const line = text.slice(0, match.index).split('\n').length;
        found.set(match[1]!, [...(found.get(match[1]!) ?? []), `${rel}:${line}`]);
      }
    }
  }
  return found;
}

const tables = [PLATFORM_ERRORS, ...modules.map((m) => m.errors ?? {})];
const tableCodes = new Map(tables.flatMap((t) => Object.entries(t)));

function errorCodeEnum(): GraphQLEnumType {
  const type = buildSchema().getType('ErrorCode');
  if (!isEnumType(type)) throw new Error('ErrorCode is not an enum');
  return type;
}

describe('enum ErrorCode', () => {
  it('has every code of every error table, described by its table, and nothing else', () => {
    const values = errorCodeEnum().getValues();
    expect(values.map((v) => v.name).sort()).toEqual([...tableCodes.keys()].sort());
    for (const value of values) {
      const spec = tableCodes.get(value.name)!;
      expect(value.value).toBe(value.name);
      expect(value.description).toContain(spec.description);
      expect(value.description).toContain(`HTTP ${spec.status}`);
    }
  });

  it('types the code of FK-DSL errors', () => {
    const fkDslError = buildSchema().getType('FkDslError');
    expect(fkDslError && 'getFields' in fkDslError && String(fkDslError.getFields().code!.type)).toBe(
      'ErrorCode!',
    );
  });

  it('reads a stored code no table has any more as INTERNAL', () => {
    buildSchema();
    expect(exposedErrorCode('FKDSL_QUERY_ERROR')).toBe('FKDSL_QUERY_ERROR');
    expect(exposedErrorCode('A_CODE_LONG_GONE')).toBe('INTERNAL');
  });
});

describe('error codes in the source', () => {
  const found = codesInSource();

  it('finds the codes where they are written (the scan is real)', () => {
    for (const code of [
      'GRAPHQL_PARSE_FAILED',
      'CSRF_HEADER_REQUIRED',
      'SUBSCRIPTION_LIMIT',
      'FKDSL_QUERY_ERROR',
    ])
      expect(found.has(code), code).toBe(true);
  });

  it('are all in an error table, so clients find them in ErrorCode', () => {
    const missing = [...found]
      .filter(([code]) => !tableCodes.has(code))
      .map(([code, at]) => `${code} at ${at.join(', ')}`);
    expect(missing).toEqual([]);
  });
});

describe('error codes of the GraphQL server itself', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  // Codes the GraphQL server library writes (not this source) for requests it cannot read as an operation.
  it.each([
    ['no query', {}],
    ['variables not an object', { query: '{ fkDslMetrics { name } }', variables: 7 }],
    ['operationName naming no operation', { query: 'query A { __typename } query B { __typename }' }],
  ])('are in ErrorCode: %s', async (_name, body) => {
    const response = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify(body),
    });
    const answer = (await response.json()) as { errors: { extensions: { code: string } }[] };
    const codes = answer.errors.map((e) => e.extensions.code);
    expect(codes.length).toBeGreaterThan(0);
    for (const code of codes) expect(tableCodes.has(code), code).toBe(true);
  });
});
