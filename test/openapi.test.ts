import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ErrorTable, PLATFORM_ERRORS } from '../src/platform/errors.ts';
import { jsonSchemaOf } from '../src/platform/operations/json-schema.ts';
import { buildOpenApiDocument } from '../src/platform/rest/openapi.ts';
import { createTestApp, type TestApp } from './support/app.ts';
import { findChromium, launchChromium, waitInPage } from './support/chromium.ts';

// biome-ignore lint/suspicious/noExplicitAny: the document is checked by the validator and the expectations.
type Json = any;

async function validate(document: unknown): Promise<void> {
  const validator = new Validator();
  const result = await validator.validate(structuredClone(document) as Record<string, unknown>);
  expect(result.errors ?? [], JSON.stringify(result.errors, null, 1)?.slice(0, 2000)).toEqual([]);
  expect(result.valid).toBe(true);
  expect(validator.version).toBe('3.1');
}

/** Follows a local `$ref` (`#/components/schemas/X`). */
function resolve(document: Json, node: Json): Json {
  if (!node?.$ref) return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, key: string) => at[key], document);
}

describe('OpenAPI document', () => {
  let t: TestApp;
  let document: Json;

  beforeAll(async () => {
    t = await createTestApp();
    const response = await t.app.fetch('/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    document = await response.json();
  });
  afterAll(async () => t?.close());

  it('is a valid OpenAPI 3.1 document', async () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.info).toMatchObject({ title: 'Vigil', version: t.app.deps.serverInfo.version });
    await validate(document);
    // The validator does refuse a broken document (so the check above means something).
    const broken = structuredClone(document);
    delete broken.info.version;
    broken.paths['/healthz'].get.responses = { 200: { content: {} } };
    expect((await new Validator().validate(broken)).valid).toBe(false);
  });

  it('has every tool as its own path, with the input schema that validates it and its output schema', () => {
    expect(t.app.tools.length).toBeGreaterThan(0);
    for (const tool of t.app.tools) {
      const operation = document.paths[`/mcp/tools/${tool.name}`]?.post;
      expect(operation, tool.name).toBeDefined();
      const input = resolve(document, operation.requestBody.content['application/json'].schema);
      expect(input).toEqual(jsonSchemaOf(tool.inputSchema, 'input'));
      const output = resolve(document, operation.responses['200'].content['application/json'].schema);
      expect(output).toEqual(jsonSchemaOf(tool.definition.outputSchema, 'output'));
      for (const status of ['400', '413', '415', '422', '429', '500']) {
        expect(operation.responses[status], `${tool.name} ${status}`).toBeDefined();
      }
      expect(operation.responses['429'].headers['Retry-After']).toBeDefined();
    }
    const search = resolve(
      document,
      document.paths['/mcp/tools/search-by-symbol'].post.requestBody.content['application/json'].schema,
    );
    expect(search.properties.market.default).toBe('US');
    expect(search.required).toEqual(['symbol']);
  });

  it('describes /mcp/tools, /mcp/tools/call and their error statuses with the shared error body', () => {
    expect(document.paths['/mcp/tools'].get.responses['200']).toBeDefined();
    const call = document.paths['/mcp/tools/call'].post;
    const request = resolve(document, call.requestBody.content['application/json'].schema);
    expect(request.required).toEqual(['name']);
    const expected: [string, string][] = [
      ['400', 'BAD_USER_INPUT'],
      ['404', 'UNKNOWN_TOOL'],
      ['404', 'UNKNOWN_SYMBOL'],
      ['413', 'PAYLOAD_TOO_LARGE'],
      ['415', 'UNSUPPORTED_MEDIA_TYPE'],
      ['422', 'INVALID_ARGUMENTS'],
      ['429', 'RATE_LIMITED'],
      ['500', 'INTERNAL'],
      ['503', 'MARKET_DATA_UNAVAILABLE'],
    ];
    for (const [status, code] of expected) {
      const response = call.responses[status];
      expect(response, status).toBeDefined();
      expect(response.description).toContain(code);
      const body = resolve(document, response.content['application/json'].schema);
      expect(body.required).toEqual(expect.arrayContaining(['error', 'detail', 'content', 'isError']));
    }
    const errorBody = document.components.schemas.ErrorBody;
    expect(errorBody.properties.error.properties.code.$ref).toBe('#/components/schemas/ErrorCode');
  });

  it('lists every error code of the error table with its status and description', () => {
    const codes = document.components.schemas.ErrorCode.oneOf;
    expect(codes.map((c: Json) => c.const)).toEqual(t.app.errors.entries().map(([code]) => code));
    for (const [code, spec] of t.app.errors.entries()) {
      expect(codes.find((c: Json) => c.const === code)).toMatchObject({
        'x-status': spec.status,
        description: spec.description,
      });
    }
  });

  it('describes the module routes, GraphQL, MCP, operations and the WebSocket routes', () => {
    expect(document.paths['/ws/connections'].get.summary).toMatch(/WebSocket/);
    for (const path of ['/graphql', '/healthz', '/readyz', '/metrics', '/mcp', '/docs', '/openapi.json']) {
      expect(document.paths[path], path).toBeDefined();
    }
    expect(document.paths['/graphql'].post).toBeDefined();
    const sockets = document['x-websockets'].map((s: Json) => s.path);
    expect(sockets).toEqual(expect.arrayContaining(['/ws/stream', '/ws/prices/{symbols}', '/graphql']));
    expect(document.info.description).toContain('/ws/prices/{symbols}');
  });

  it('is a function of its inputs: an API with no tools, routes or sockets is valid too', async () => {
    const small = buildOpenApiDocument({
      version: '9.9.9',
      tools: [],
      errors: new ErrorTable(PLATFORM_ERRORS),
      routes: [{ path: '/things/:id', methods: ['GET', 'DELETE'], summary: 'One thing.' }],
      sockets: [],
    }) as Json;
    expect(small.info.version).toBe('9.9.9');
    expect(small.paths['/things/{id}'].get.parameters[0]).toMatchObject({
      name: 'id',
      in: 'path',
      required: true,
    });
    expect(small.paths['/things/{id}'].delete).toBeDefined();
    await validate(small);
  });
});

describe('/docs', () => {
  let t: TestApp;
  let html: string;
  let headers: Headers;

  beforeAll(async () => {
    t = await createTestApp({ listen: true });
    const response = await t.app.fetch('/docs');
    expect(response.status).toBe(200);
    headers = response.headers;
    html = await response.text();
  });
  afterAll(async () => t?.close());

  const references = () =>
    [...html.matchAll(/\s(?:src|href)="([^"]*)"/g)].map((m) => m[1]!.replace(/&amp;/g, '&'));

  it('is an HTML page that refers to no other host and runs under a strict CSP', () => {
    expect(headers.get('content-type')).toMatch(/^text\/html/);
    expect(html).toMatch(/^<!doctype html>/i);
    expect(html).not.toMatch(/https?:\/\//);
    for (const url of references()) expect(url, url).toMatch(/^\/(?!\/)/);
    const csp = headers.get('content-security-policy')!;
    expect(csp).toContain("script-src 'self'");
    expect(csp).toContain("connect-src 'self'");
    expect(html).not.toMatch(/<script(?![^>]*\ssrc=)[^>]*>/);
    expect(html).not.toMatch(/<style|\sstyle="/);
  });

  it('is the viewer of the document alone: GraphiQL, /mcp, the WebSocket routes and every tool are in it', async () => {
    expect(html).toContain('data-spec-url="/openapi.json"');
    const document: Json = await (await t.app.fetch('/openapi.json')).json();
    const intro: string = document.info.description;
    expect(intro).toContain('[`/graphql`](/graphql)');
    expect(intro).toContain('`/mcp`');
    for (const path of ['/ws/stream', '/ws/prices/{symbols}']) expect(intro).toContain(`\`${path}\``);
    for (const tool of t.app.tools) expect(intro).toMatch(new RegExp(`^- \`${tool.name}\` \\(\``, 'm'));
  });

  // What a reader sees: Swagger UI renders the document's descriptions as Markdown (CommonMark).
  it('shows Markdown rendered, never raw, in headless Chromium: code spans, lists and links', async (ctx) => {
    const binary = findChromium();
    if (!binary) {
      if (process.env.VIGIL_REQUIRE_CHROMIUM)
        throw new Error('VIGIL_REQUIRE_CHROMIUM is set but no chromium binary was found');
      ctx.skip('no chromium or chromium-browser binary on the PATH (set CHROMIUM_BIN)');
    }
    const browser = await launchChromium(binary!);
    try {
      const page = await browser.newPage();
      await browser.send('Page.enable', {}, page);
      await browser.send('Page.navigate', { url: `${t.url}/docs` }, page);
      await waitInPage(
        browser,
        page,
        'the operations',
        `document.querySelectorAll('.opblock').length > ${t.app.tools.length}`,
      );
      const intro = await waitInPage<{ html: string; text: string; items: number }>(
        browser,
        page,
        'the introduction',
        `(() => { const info = document.querySelector('.swagger-ui .info'); return info && { html: info.innerHTML, text: info.innerText, items: info.querySelectorAll('li').length }; })()`,
      );
      expect(intro.html).toContain('<code>execute-fk-dsl</code>');
      expect(intro.html).toMatch(/<a [^>]*href="\/graphql"/);
      expect(intro.items).toBeGreaterThan(t.app.tools.length);
      expect(intro.text).toMatch(/execute-fk-dsl \(read; write with async: true\)/);
      // A tool's description: its examples are code, and so is its scope.
      await browser.send(
        'Runtime.evaluate',
        {
          expression: `document.querySelector('#operations-MCP_tools-callExecuteFkDsl .opblock-summary-control').click()`,
        },
        page,
      );
      const description = await waitInPage<{ html: string; text: string }>(
        browser,
        page,
        'the description of execute-fk-dsl',
        `(() => { const d = document.querySelector('#operations-MCP_tools-callExecuteFkDsl .opblock-description'); return d && { html: d.innerHTML, text: d.innerText }; })()`,
      );
      expect(description.html).toContain(
        '<code>EVALUATE AAPL: PRICE, VOLATILITY(30d), TECHNICAL(RSI, MACD)</code>',
      );
      expect(description.html).toContain(
        'Scope: <code>read</code>; <code>write</code> with <code>async: true</code>.',
      );
      const shown = await waitInPage<string>(browser, page, 'the page text', 'document.body.innerText');
      expect(shown.match(/.{0,60}`.{0,60}/g) ?? []).toEqual([]);
    } finally {
      await browser.close();
    }
  });

  it('serves every referenced asset with its content type and a long cache lifetime', async () => {
    const assets = references().filter((url) => url.startsWith('/docs/assets/'));
    expect(assets.length).toBeGreaterThanOrEqual(5);
    const expected: Record<string, RegExp> = {
      js: /^text\/javascript; charset=utf-8$/,
      css: /^text\/css; charset=utf-8$/,
      png: /^image\/png$/,
    };
    for (const url of assets) {
      const response = await t.app.fetch(url);
      expect(response.status, url).toBe(200);
      const extension = new URL(url, 'http://x').pathname.split('.').pop()!;
      expect(response.headers.get('content-type'), url).toMatch(expected[extension]!);
      expect(response.headers.get('cache-control')).toContain('immutable');
      expect((await response.arrayBuffer()).byteLength).toBeGreaterThan(100);
    }
    const bundle = assets.find((url) => url.includes('swagger-ui-bundle.js'))!;
    const zipped = await t.app.fetch(bundle, { headers: { 'accept-encoding': 'gzip, br' } });
    expect(zipped.headers.get('content-encoding')).toBe('gzip');
  });

  it('starts the viewer without the online validator, and serves no file outside its list', async () => {
    const init = references().find((url) => url.includes('docs.js'))!;
    const script = await (await t.app.fetch(init)).text();
    expect(script).toContain('validatorUrl: null');
    for (const name of ['package.json', 'index.html', '..%2Fpackage.json', 'swagger-ui.js.map']) {
      expect((await t.app.fetch(`/docs/assets/${name}`)).status, name).toBe(404);
    }
    expect((await t.app.fetch('/docs/assets/..%2F..%2Fpackage.json')).status).toBe(404);
  });
});
