import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ApqStore } from './apq-store.ts';
import { loadPersistedOperations, PersistedOperations, sha256Hex } from './persisted-operations.ts';

const LISTED = '{ serverInfo { version } }';
const OTHER = '{ serverInfo { name } }';
const hashOf = (document: string) => ({ persistedQuery: { version: 1, sha256Hash: sha256Hex(document) } });
const codeOf = (resolution: ReturnType<PersistedOperations['resolve']>) =>
  resolution.ok ? 'ok' : resolution.error.extensions.code;
const statusOf = (resolution: ReturnType<PersistedOperations['resolve']>) =>
  resolution.ok ? 200 : (resolution.error.extensions.http as { status: number }).status;

const apq = () =>
  new ApqStore({ maxEntries: 10, maxBytes: 10_000, ttlMs: 60_000 }, { now: () => new Date(0) });

describe('PersistedOperations', () => {
  it('registers a document sent with its hash (APQ) and then runs it by hash alone', () => {
    const operations = new PersistedOperations({ apq: apq() });
    const miss = operations.resolve({ extensions: hashOf(OTHER) });
    expect([codeOf(miss), statusOf(miss)]).toEqual(['PERSISTED_QUERY_NOT_FOUND', 404]);
    expect(miss.ok || miss.error.message).toBe('PersistedQueryNotFound');

    const full = operations.resolve({ query: OTHER, extensions: hashOf(OTHER) });
    expect(full).toEqual({ ok: true, register: { hash: sha256Hex(OTHER), document: OTHER } });
    if (full.ok && full.register) operations.remember(full.register);
    expect(operations.resolve({ extensions: hashOf(OTHER) })).toEqual({ ok: true, document: OTHER });
  });

  it('refuses a hash that is not the SHA-256 of the document sent with it', () => {
    const operations = new PersistedOperations({ apq: apq() });
    expect(codeOf(operations.resolve({ query: OTHER, extensions: hashOf(LISTED) }))).toBe(
      'PERSISTED_QUERY_MISMATCH',
    );
  });

  it('says APQ is not supported when it is off, so clients stop sending hashes', () => {
    const operations = new PersistedOperations({});
    expect(operations.active).toBe(false);
    const resolution = operations.resolve({ extensions: hashOf(OTHER) });
    expect(codeOf(resolution)).toBe('PERSISTED_QUERY_NOT_SUPPORTED');
    expect(resolution.ok || resolution.error.message).toBe('PersistedQueryNotSupported');
    expect(operations.resolve({ query: OTHER })).toEqual({ ok: true });
  });

  it('refuses a malformed persistedQuery extension by name', () => {
    const operations = new PersistedOperations({ apq: apq() });
    const resolution = operations.resolve({
      extensions: { persistedQuery: { version: 2, sha256Hash: 'x' } },
    });
    expect(codeOf(resolution)).toBe('BAD_USER_INPUT');
    expect(resolution.ok || resolution.error.extensions.field).toBe('extensions.persistedQuery');
  });

  describe('with only listed operations', () => {
    const operations = new PersistedOperations({
      listed: { [sha256Hex(LISTED)]: LISTED, 'custom-key': OTHER },
      only: true,
      apq: apq(),
    });

    it('runs a listed operation by its key, or sent in full', () => {
      expect(operations.resolve({ extensions: hashOf(LISTED) })).toEqual({ ok: true, document: LISTED });
      expect(
        operations.resolve({ extensions: { persistedQuery: { version: 1, sha256Hash: 'custom-key' } } }),
      ).toEqual({ ok: true, document: OTHER });
      expect(operations.resolve({ query: LISTED })).toEqual({ ok: true });
      expect(operations.resolve({ query: OTHER })).toEqual({ ok: true });
    });

    it('refuses anything else with codes clients do not answer by registering the document', () => {
      const arbitrary = operations.resolve({ query: '{ __typename }' });
      expect([codeOf(arbitrary), statusOf(arbitrary)]).toEqual(['PERSISTED_OPERATION_REQUIRED', 403]);
      const unknown = operations.resolve({ extensions: hashOf('{ __typename }') });
      expect([codeOf(unknown), statusOf(unknown)]).toEqual(['PERSISTED_OPERATION_NOT_FOUND', 404]);
      expect(unknown.ok || unknown.error.message).not.toBe('PersistedQueryNotFound');
      // Registration is off: sending the document with its hash does not make it runnable.
      const register = operations.resolve({ query: '{ __typename }', extensions: hashOf('{ __typename }') });
      expect(codeOf(register)).toBe('PERSISTED_OPERATION_REQUIRED');
    });

    it('refuses a listed key sent with another document', () => {
      expect(codeOf(operations.resolve({ query: OTHER, extensions: hashOf(LISTED) }))).toBe(
        'PERSISTED_QUERY_MISMATCH',
      );
    });
  });
});

describe('loadPersistedOperations', () => {
  const dir = mkdtempSync(join(tmpdir(), 'vigil-persisted-'));
  const file = (name: string, content: unknown) => {
    const path = join(dir, name);
    writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
    return path;
  };

  it('reads a key -> document map and an Apollo persisted-query manifest', () => {
    expect(loadPersistedOperations(file('map.json', { abc: LISTED }))).toEqual({ abc: LISTED });
    const manifest = {
      format: 'apollo-persisted-query-manifest',
      version: 1,
      operations: [{ id: 'def', name: 'Version', type: 'query', body: LISTED }],
    };
    expect(loadPersistedOperations(file('manifest.json', manifest))).toEqual({ def: LISTED });
  });

  it('says what is wrong with a file it cannot use', () => {
    expect(() => loadPersistedOperations(join(dir, 'missing.json'))).toThrow(/ENOENT/);
    expect(() => loadPersistedOperations(file('bad.json', '{'))).toThrow(/not valid JSON/);
    expect(() => loadPersistedOperations(file('empty.json', {}))).toThrow(/lists no operation/);
    expect(() => loadPersistedOperations(file('blank.json', { a: ' ' }))).toThrow(/has no document/);
    expect(() => loadPersistedOperations(file('list.json', [LISTED]))).toThrow(/expected a JSON object/);
  });
});
