import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'vitest';

/**
 * The recorded real provider responses shared by the project (read in place, never copied):
 * `VIGIL_FIXTURES_DIR` when set, else `shared/fixtures/providers` beside the checkout or beside
 * any folder above it (a CI clone may live elsewhere). Undefined when there is no such folder (a
 * set VIGIL_FIXTURES_DIR naming a missing folder counts as none): tests that need recordings are
 * then skipped, saying why, instead of failing.
 */
export const FIXTURES_DIR: string | undefined = findFixtures();

export const fixturesMissing = FIXTURES_DIR === undefined;

/** Why tests that read recordings are skipped (in their titles). */
export const FIXTURES_MISSING =
  'provider recordings not found; set VIGIL_FIXTURES_DIR to the shared/fixtures/providers folder';

/** A test title, suffixed with the reason it is skipped when the recordings are absent. */
export const skippedForFixtures = (title: string): string =>
  fixturesMissing ? `${title} (skipped: ${FIXTURES_MISSING})` : title;

/**
 * `describe` for tests that read recordings. Without them the suite is skipped, its title saying
 * what is missing, and its body is not even collected (collecting would read the recordings).
 */
export function describeWithFixtures(title: string, fn: () => void): void {
  if (!fixturesMissing) {
    describe(title, fn);
    return;
  }
  describe.skip(skippedForFixtures(title), () => {
    it('runs on recorded provider responses', () => {});
  });
}

/** `it` for a test that reads recordings: skipped, its title saying what is missing, without them. */
export function itWithFixtures(title: string, fn: () => unknown): void {
  it.skipIf(fixturesMissing)(skippedForFixtures(title), fn);
}

function findFixtures(): string | undefined {
  const configured = process.env.VIGIL_FIXTURES_DIR;
  if (configured) {
    if (!existsSync(configured)) return undefined;
    return configured.endsWith('/') ? configured : `${configured}/`;
  }
  let dir = fileURLToPath(new URL('../..', import.meta.url));
  for (;;) {
    const candidate = join(dir, 'shared', 'fixtures', 'providers');
    if (existsSync(candidate)) return `${candidate}/`;
    const parent = dirname(dir);
    if (parent === dir) return undefined;
    dir = parent;
  }
}

export interface RecordedResponse {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** The response body exactly as the API sent it (text). */
  readonly body: string;
  /** The request URL, when the recording kept it. */
  readonly requestUrl?: string;
}

/**
 * Loads `<provider>/<file>` and unwraps its recording format (see the fixtures README): Yahoo
 * recordings `{request, response:{status, headers, bodyJson|body}}`, VCR cassettes
 * `{request:{uri}, response:{status:{code}, headers, body:{string}}}`, or a raw body.
 */
export function loadFixture(relativePath: string): RecordedResponse {
  if (FIXTURES_DIR === undefined) throw new Error(`${FIXTURES_MISSING} (needed: ${relativePath})`);
  const text = readFileSync(`${FIXTURES_DIR}${relativePath}`, 'utf8');
  const json = JSON.parse(text) as Record<string, unknown>;
  const response = json.response as Record<string, unknown> | undefined;
  const requestInfo = json.request as Record<string, unknown> | undefined;
  if (response && typeof response.status === 'number') {
    const body = 'bodyJson' in response ? JSON.stringify(response.bodyJson) : String(response.body ?? '');
    return {
      status: response.status,
      headers: flatHeaders(response.headers),
      body,
      requestUrl: requestInfo?.url as string,
    };
  }
  if (response && typeof response.status === 'object' && response.status !== null) {
    const status = (response.status as { code: number }).code;
    const body = String((response.body as { string?: string } | undefined)?.string ?? '');
    return { status, headers: flatHeaders(response.headers), body, requestUrl: requestInfo?.uri as string };
  }
  return { status: 200, headers: { 'content-type': 'application/json' }, body: text };
}

/** Parsed body of a fixture (for expectations computed from the recorded data itself). */
export function fixtureJson<T = unknown>(relativePath: string): T {
  return JSON.parse(loadFixture(relativePath).body) as T;
}

function flatHeaders(raw: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  if (!raw || typeof raw !== 'object') return out;
  for (const [key, value] of Object.entries(raw as Record<string, unknown>)) {
    const lower = key.toLowerCase();
    // Bodies are stored decoded (a cassette kept `Content-Encoding: gzip` for a plain body).
    if (['content-length', 'transfer-encoding', 'connection', 'content-encoding'].includes(lower)) continue;
    out[lower] = Array.isArray(value) ? value.map(String).join(', ') : String(value);
  }
  return out;
}
