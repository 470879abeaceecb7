/**
 * The console's page and files as HTTP serves them: a browser's navigation to / gets the page, a
 * JSON client the route index; the page names only its own hashed files under a CSP that allows no
 * other origin and no inline code; the files are cached for a year and gzipped. (The console itself
 * is driven in Chromium by console.browser.test.ts.)
 */
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { wantsPage } from '../src/console/console.routes.ts';
import { createTestApp, type TestApp } from './support/app.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';

describe('wantsPage', () => {
  const ask = (accept: string | undefined) =>
    wantsPage(new Request('http://x/', accept === undefined ? {} : { headers: { accept } }));
  it('is a browser navigation, not a client that asks for JSON or anything', () => {
    expect(ask(BROWSER)).toBe(true);
    expect(ask('text/html')).toBe(true);
    expect(ask(undefined)).toBe(false);
    expect(ask('*/*')).toBe(false);
    expect(ask('application/json')).toBe(false);
    expect(ask('application/json, text/html;q=0.5')).toBe(false);
    expect(ask('text/html;q=0')).toBe(false);
  });
});

describe('the console over HTTP', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(async () => t?.close());

  it('serves the page to a browser at / and the JSON index to everyone else', async () => {
    const page = await t.app.fetch('/', { headers: { accept: BROWSER } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(page.headers.get('vary')).toBe('accept');
    const csp = page.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("style-src 'self'");
    expect(csp).not.toMatch(/https?:|\*|unsafe/);
    const html = await page.text();
    expect(html).toContain('<div id="app"></div>');
    expect(html).not.toMatch(/<script>|<style|style="/);
    for (const accept of ['application/json', '*/*']) {
      const index = await t.app.fetch('/', { headers: { accept } });
      expect(index.headers.get('content-type')).toBe('application/json; charset=utf-8');
      expect(await index.json()).toMatchObject({ name: 'vigil', documentation: '/docs' });
    }
  });

  it("serves the page's files gzipped and cached for a year, and nothing else from the folder", async () => {
    const html = await (await t.app.fetch('/', { headers: { accept: BROWSER } })).text();
    const files = [...html.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+)"/g)].map((m) => m[1]!);
    expect(files.some((f) => /\/main-[A-Z0-9]+\.js$/.test(f))).toBe(true);
    expect(files.some((f) => /\/main-[A-Z0-9]+\.css$/.test(f))).toBe(true);
    for (const file of files) {
      const response = await t.app.fetch(file, { headers: { 'accept-encoding': 'gzip' } });
      expect(response.status, file).toBe(200);
      expect(response.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-encoding')).toBe('gzip');
      expect(gunzipSync(Buffer.from(await response.arrayBuffer())).length).toBeGreaterThan(0);
    }
    for (const path of [
      '/console/assets/manifest.json',
      '/console/assets/..%2F..%2Fpackage.json',
      '/console/assets/nope.js',
    ]) {
      expect((await t.app.fetch(path)).status, path).toBe(404);
    }
  });

  it('needs no key for the page and its files when AUTH_REQUIRED is on (the page signs in)', async () => {
    const locked = await createTestApp({ env: { AUTH_REQUIRED: 'true' } });
    try {
      const page = await locked.app.fetch('/', { headers: { accept: BROWSER } });
      expect(page.status).toBe(200);
      const js = (await page.text()).match(/src="(\/console\/assets\/[^"]+\.js)"/)?.[1];
      expect((await locked.app.fetch(js!)).status).toBe(200);
    } finally {
      await locked.close();
    }
  });
});
