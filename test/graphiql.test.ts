import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { parse, validate } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { GRAPHIQL_TABS } from '../src/graphiql-tabs.ts';
import { buildSchema, printedSchema } from '../src/schema.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { type CdpEvent, findChromium, launchChromium, waitInPage } from './support/chromium.ts';

const HTML = { accept: 'text/html' };

describe('the example tabs', () => {
  it('are valid operations on the schema, each named (the name titles its tab)', () => {
    const names = GRAPHIQL_TABS.map((tab) => {
      const document = parse(tab.query);
      expect(validate(buildSchema(), document), tab.query).toEqual([]);
      const [operation] = document.definitions;
      expect(operation?.kind).toBe('OperationDefinition');
      return operation?.kind === 'OperationDefinition' ? operation.name?.value : undefined;
    });
    expect(names).toEqual(['Quote', 'FkDsl', 'Prices', 'Viewer']);
    // GraphiQL fills the variables editor of the tab it opens on from its own storage, not the tab.
    expect(GRAPHIQL_TABS[0]?.variables).toBeUndefined();
  });
});

describe('GraphiQL and /schema.graphql', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ listen: true });
  });
  afterAll(async () => t?.close());

  it('serves the page with its examples under a CSP that names no other origin', async () => {
    const response = await t.app.fetch('/graphql', { headers: HTML });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    const html = await response.text();
    expect(html).toContain('<title>Vigil GraphQL</title>');
    expect(html).toContain('query Quote');
    expect(html).toContain('subscription Prices');
    expect(html).toContain('"subscriptionsProtocol":"WS"');
    const csp = response.headers.get('content-security-policy') ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toMatch(/script-src 'sha256-[A-Za-z0-9+/]+=*'(;|$)/);
    expect(csp).toContain("connect-src 'self'");
    expect(csp).not.toMatch(/https?:|\*/);
  });

  it('sends the page compressed once to browsers that take gzip, and revalidates it by ETag', async () => {
    const plain = await t.app.fetch('/graphql', { headers: HTML });
    const body = new Uint8Array(await plain.arrayBuffer());
    const zipped = await t.app.fetch('/graphql', { headers: { ...HTML, 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
    expect(zipped.headers.get('vary')).toContain('accept-encoding');
    const compressed = new Uint8Array(await zipped.arrayBuffer());
    expect(Number(zipped.headers.get('content-length'))).toBe(compressed.byteLength);
    expect(compressed.byteLength).toBeLessThan(body.byteLength / 3);
    expect(Buffer.from(gunzipSync(compressed)).equals(Buffer.from(body))).toBe(true);

    const etag = plain.headers.get('etag');
    expect(etag).toMatch(/^"[\w-]+"$/);
    const again = await t.app.fetch('/graphql', { headers: { ...HTML, 'if-none-match': etag! } });
    expect(again.status).toBe(304);
    expect(await again.text()).toBe('');
  });

  it('serves /schema.graphql: the text `npm run schema` writes', async () => {
    const response = await t.app.fetch('/schema.graphql');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/plain; charset=utf-8');
    expect(await response.text()).toBe(printedSchema());
    const etag = response.headers.get('etag')!;
    expect((await t.app.fetch('/schema.graphql', { headers: { 'if-none-match': etag } })).status).toBe(304);
  });

  // The browser test: GraphiQL in headless Chromium with no network but this server.
  it('works in headless Chromium with no network: examples, docs, a query run, nothing asked elsewhere', async (ctx) => {
    const binary = findChromium();
    if (!binary) {
      if (process.env.VIGIL_REQUIRE_CHROMIUM)
        throw new Error('VIGIL_REQUIRE_CHROMIUM is set but no chromium binary was found');
      ctx.skip(
        'no chromium or chromium-browser binary on the PATH (set CHROMIUM_BIN, or install the chromium package)',
      );
    }
    const browser = await launchChromium(binary!);
    try {
      const requested: string[] = [];
      const problems: string[] = [];
      browser.onEvent(({ method, params }: CdpEvent) => {
        if (method === 'Network.requestWillBeSent') requested.push((params.request as { url: string }).url);
        if (method === 'Network.webSocketCreated') requested.push(params.url as string);
        if (method === 'Runtime.exceptionThrown') problems.push(JSON.stringify(params.exceptionDetails));
        if (method === 'Log.entryAdded') {
          const entry = params.entry as { level: string; text: string };
          if (entry.level === 'error') problems.push(entry.text);
        }
      });
      const page = await browser.newPage();
      for (const domain of ['Page', 'Network', 'Runtime', 'Log'])
        await browser.send(`${domain}.enable`, {}, page);
      await browser.send('Page.navigate', { url: `${t.url}/graphql` }, page);

      // Monaco renders spaces as no-break spaces: compare the editor's text with whitespace folded.
      const text = (selector: string) =>
        `(document.querySelector(${JSON.stringify(selector)})?.innerText ?? '').replace(/[\\s\\u00a0]+/g, ' ')`;
      await waitInPage(
        browser,
        page,
        'the first example in the editor',
        `${text('.graphiql-query-editor')}.includes('query Quote {')`,
      );
      const tabs = await waitInPage<string>(browser, page, 'the example tabs', `${text('.graphiql-tabs')}`);
      expect(tabs).toMatch(/Quote.*FkDsl.*Prices.*Viewer/);

      // The documentation explorer lists the root types once introspection has answered.
      await browser.send(
        'Runtime.evaluate',
        { expression: `document.querySelector('[aria-label="Show Documentation Explorer"]').click()` },
        page,
      );
      const docs = await waitInPage<string>(
        browser,
        page,
        'the schema documentation',
        `(() => { const docs = ${text('.graphiql-doc-explorer')}; return docs.includes('query: Query') && docs.includes('subscription: Subscription') ? docs : ''; })()`,
      );
      expect(docs).toContain('SourcedQuote');

      await browser.send(
        'Runtime.evaluate',
        { expression: `document.querySelector('.graphiql-execute-button').click()` },
        page,
      );
      const result = await waitInPage<string>(
        browser,
        page,
        'the query result',
        `(() => { const r = ${text('.graphiql-response')}; return r.includes('"data"') ? r : ''; })()`,
      );
      expect(result).toContain('"quote": {');
      expect(result).toContain('"symbol": "AAPL"');
      expect(result).toMatch(/"price": \d/);
      expect(result).not.toContain('"errors"');

      const { data } = await browser.send<{ data: string }>(
        'Page.captureScreenshot',
        { format: 'png' },
        page,
      );
      const file = join(mkdtempSync(join(tmpdir(), 'vigil-graphiql-')), 'graphiql.png');
      writeFileSync(file, Buffer.from(data, 'base64'));
      console.log(`GraphiQL screenshot: ${file}`);
      await ctx.annotate(`screenshot: ${file}`);

      const hosts = requested
        .filter((url) => /^(https?|wss?):/.test(url))
        .map((url) => new URL(url).hostname);
      expect(hosts).toContain('127.0.0.1');
      expect(hosts.filter((host) => host !== '127.0.0.1')).toEqual([]);
      expect(problems).toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);
});

describe('with API keys required', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({
      env: { AUTH_REQUIRED: 'true', ADMIN_API_KEY: 'vigil-test-bootstrap-admin-key-0001' },
    });
  });
  afterAll(async () => t?.close());

  it('serves the page and the schema without a key: the operations they lead to need one', async () => {
    expect((await t.app.fetch('/graphql', { headers: HTML })).status).toBe(200);
    expect((await t.app.fetch('/schema.graphql')).status).toBe(200);
    const operation = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    expect(operation.status).toBe(401);
  });
});

describe('with introspection and GraphiQL off', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { GRAPHQL_INTROSPECTION: 'false', GRAPHQL_GRAPHIQL: 'false' } });
  });
  afterAll(async () => t?.close());

  it('serves neither the page nor the schema, which tells what introspection would', async () => {
    const page = await t.app.fetch('/graphql', { headers: HTML });
    expect(await page.text()).not.toMatch(/graphiql/i);
    expect((await t.app.fetch('/schema.graphql')).status).toBe(404);
  });
});
