import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCOPES, type Scope } from '../src/platform/access/principal.ts';
import { openApiPath } from '../src/platform/rest/openapi.ts';
import { ADMIN_KEY, bearer, issueKey } from './support/access.ts';
import { createTestApp, type TestApp } from './support/app.ts';

// biome-ignore lint/suspicious/noExplicitAny: JSON documents and answers are checked by the expectations.
type Json = any;

/**
 * The scope every route and tool is labelled with is the scope the server enforces. The labels are
 * read where clients read them (`/openapi.json`, which `/docs` shows; the index at `/`; `GET
 * /mcp/tools`; MCP's `tools/list`), and every labelled route and tool, with each argument value
 * that is labelled as needing another scope, is called with a key of each scope: a key below the
 * label must be refused (403 FORBIDDEN naming the label), a key at or above it must not be.
 */

interface Call {
  /** What is called, for the report. */
  readonly what: string;
  /** The scope the labels say it needs. */
  readonly label: Scope;
  readonly send: (key: string) => Promise<{ refused: boolean; scope?: string; detail: string }>;
}

const rank = (scope: Scope) => SCOPES.indexOf(scope);

/** Follows a local `$ref`. */
function resolve(document: Json, node: Json): Json {
  if (!node?.$ref) return node;
  return node.$ref
    .slice(2)
    .split('/')
    .reduce((at: Json, key: string) => at[key], document);
}

/** The least value a JSON Schema accepts, as a client would write it from the document alone. */
function example(document: Json, node: Json): unknown {
  const schema = resolve(document, node) ?? {};
  if (schema.const !== undefined) return schema.const;
  if (schema.enum) return schema.enum[0];
  const choice = schema.oneOf ?? schema.anyOf;
  if (choice) return example(document, choice[0]);
  const type = Array.isArray(schema.type) ? schema.type.find((t: string) => t !== 'null') : schema.type;
  switch (type) {
    case 'object':
      return Object.fromEntries(
        (schema.required ?? []).map((name: string) => [name, example(document, schema.properties?.[name])]),
      );
    case 'array':
      return Array.from({ length: schema.minItems ?? 0 }, () => example(document, schema.items));
    case 'string':
      return stringExample(schema);
    case 'integer':
    case 'number':
      return schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : 1);
    case 'boolean':
      return false;
    default:
      return 1;
  }
}

function stringExample(schema: Json): string {
  if (schema.format === 'date-time') return new Date().toISOString();
  if (schema.format === 'uri') return 'http://127.0.0.1:9/';
  if (schema.format === 'email') return 'someone@example.com';
  const length = Math.max(1, schema.minLength ?? 1);
  const candidates = ['x', 'x1', 'AAPL', '1'].map((c) => c.padEnd(length, 'x'));
  const found = candidates.find((c) => !schema.pattern || new RegExp(schema.pattern, 'u').test(c));
  if (found === undefined) throw new Error(`no example for ${JSON.stringify(schema)}`);
  return found;
}

describe('scope labels are what the server enforces, on every route and tool', () => {
  let t: TestApp;
  const keys = {} as Record<Scope, string>;
  const mcp = {} as Record<Scope, Client>;
  let document: Json;
  let index: Json;

  beforeAll(async () => {
    t = await createTestApp({
      listen: true,
      env: {
        AUTH_REQUIRED: 'true',
        ADMIN_API_KEY: ADMIN_KEY,
        AUTH_MAX_FAILURES_PER_MINUTE: '100000',
        RATE_LIMIT_MAX: '100000',
      },
    });
    for (const scope of SCOPES) {
      keys[scope] = (await issueKey(t.app, `${scope} key`, [scope.toUpperCase() as 'READ'])).secret;
      mcp[scope] = new Client({ name: `vigil-scopes-${scope}`, version: '1.0.0' });
      await mcp[scope].connect(
        new StreamableHTTPClientTransport(new URL(`${t.url}/mcp`), {
          requestInit: { headers: bearer(keys[scope]) },
        }),
      );
    }
    document = await (await fetch(`${t.url}/openapi.json`)).json();
    index = await (await fetch(`${t.url}/`, { headers: bearer(keys.read) })).json();
  });
  afterAll(async () => {
    await Promise.all(Object.values(mcp).map((client) => client.close()));
    await t?.close();
  });

  /** Every labelled HTTP operation of the document: module routes, the tool list, each tool route. */
  function httpCalls(): Call[] {
    const calls: Call[] = [];
    for (const [path, methods] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(methods)) {
        const label = operation['x-required-scope'] as Scope | undefined;
        if (!label) continue;
        const schema = operation.requestBody?.content?.['application/json']?.schema;
        const body = schema ? (example(document, schema) as Record<string, unknown>) : undefined;
        const variants = [
          { label, body, what: `${method.toUpperCase()} ${path}` },
          ...(operation['x-scope-when'] ?? []).map((w: Json) => ({
            label: w.scope,
            body: { ...body, ...w.arguments },
            what: `${method.toUpperCase()} ${path} ${JSON.stringify(w.arguments)}`,
          })),
        ];
        for (const variant of variants) {
          const url = `${t.url}${path.replace(/\{[^}]+\}/g, 'x')}`;
          const payload = variant.body ?? (['post', 'put'].includes(method) ? {} : undefined);
          calls.push({
            what: variant.what,
            label: variant.label,
            send: async (key) => {
              const response = await fetch(url, {
                method: method.toUpperCase(),
                headers: { ...bearer(key), ...(payload ? { 'content-type': 'application/json' } : {}) },
                ...(payload ? { body: JSON.stringify(payload) } : {}),
              });
              const answer: Json = await response.json().catch(() => null);
              const code = answer?.error?.code;
              return {
                refused: response.status === 403 && code === 'FORBIDDEN',
                scope: answer?.error?.details?.scope,
                detail: `${response.status} ${code ?? ''}`,
              };
            },
          });
        }
      }
    }
    return calls;
  }

  /** Every tool as MCP lists it, called over MCP with each argument value its `_meta` labels. */
  async function mcpCalls(): Promise<Call[]> {
    const { tools } = await mcp.admin.listTools();
    return tools.flatMap((tool) => {
      const meta = tool._meta ?? {};
      const args = example(document, tool.inputSchema) as Record<string, unknown>;
      const variants = [
        { label: meta['vigil/scope'] as Scope, args, what: `MCP ${tool.name}` },
        ...((meta['vigil/scope-when'] ?? []) as Json[]).map((w) => ({
          label: w.scope as Scope,
          args: { ...args, ...w.arguments },
          what: `MCP ${tool.name} ${JSON.stringify(w.arguments)}`,
        })),
      ];
      return variants.map(
        (variant): Call => ({
          what: variant.what,
          label: variant.label,
          send: async (key) => {
            const scope = SCOPES.find((s) => keys[s] === key)!;
            try {
              const result: Json = await mcp[scope].callTool({ name: tool.name, arguments: variant.args });
              const text: string = result.content?.[0]?.text ?? '';
              const refused = result.isError === true && text.startsWith('FORBIDDEN');
              return {
                refused,
                scope: /"scope":"(\w+)"/.exec(text)?.[1],
                detail: result.isError ? text.slice(0, 80) : 'ok',
              };
            } catch (error) {
              return { refused: false, detail: `protocol error: ${(error as Error).message.slice(0, 120)}` };
            }
          },
        }),
      );
    });
  }

  it('labels each tool alike in /openapi.json, the index, GET /mcp/tools and MCP tools/list', async () => {
    const listed: Json = await (await fetch(`${t.url}/mcp/tools`, { headers: bearer(keys.read) })).json();
    const { tools } = await mcp.read.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(t.app.tools.map((tool) => tool.name));
    for (const tool of tools) {
      const operation = document.paths[`/mcp/tools/${tool.name}`].post;
      const fromDocument = {
        'vigil/scope': operation['x-required-scope'],
        ...(operation['x-scope-when'] ? { 'vigil/scope-when': operation['x-scope-when'] } : {}),
      };
      expect(tool._meta, tool.name).toEqual(fromDocument);
      expect(listed.tools.find((x: Json) => x.name === tool.name)._meta, tool.name).toEqual(fromDocument);
      const entry = index.tools.find((x: Json) => x.name === tool.name);
      expect({
        'vigil/scope': entry.scope,
        ...(entry.scope_when ? { 'vigil/scope-when': entry.scope_when } : {}),
      }).toEqual(fromDocument);
      // The description says it in words: `read`, and `write` with `async: true`.
      const words = [
        `\`${fromDocument['vigil/scope']}\``,
        ...(operation['x-scope-when'] ?? []).map(
          (w: Json) =>
            `\`${w.scope}\` with ${Object.entries(w.arguments)
              .map(([k, v]) => `\`${k}: ${JSON.stringify(v)}\``)
              .join(', ')}`,
        ),
      ].join('; ');
      expect(operation.description).toContain(`Scope: ${words}.`);
      expect(document.info.description).toContain(`\`${tool.name}\` (${words})`);
    }
    // execute-fk-dsl waits (a query, `read`) unless asked for a background task (a mutation, `write`).
    expect(index.tools.find((x: Json) => x.name === 'execute-fk-dsl')).toEqual({
      name: 'execute-fk-dsl',
      scope: 'read',
      scope_when: [{ scope: 'write', arguments: { async: true } }],
    });
  });

  it('labels each route alike in /openapi.json and the index, one access per method', () => {
    const fromIndex = new Map<string, string>();
    for (const entry of index.http) {
      for (const method of entry.methods) fromIndex.set(`${method} ${openApiPath(entry.path)}`, entry.access);
    }
    let compared = 0;
    for (const [path, methods] of Object.entries<Json>(document.paths)) {
      for (const [method, operation] of Object.entries<Json>(methods)) {
        const label = operation['x-required-scope'];
        const key = `${method.toUpperCase()} ${path}`;
        if (label === undefined || path.startsWith('/mcp/tools/')) continue;
        expect(fromIndex.get(key), key).toBe(label);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(15);
    // A path whose methods differ is listed once per access: reading alerts needs `read`, changing them `write`.
    expect(fromIndex.get('GET /api/alerts')).toBe('read');
    expect(fromIndex.get('POST /api/alerts')).toBe('write');
    expect(fromIndex.get('GET /api/alerts/{alert_id}')).toBe('read');
    expect(fromIndex.get('PUT /api/alerts/{alert_id}')).toBe('write');
  });

  it('refuses exactly the keys below the label, on every labelled route and tool, over HTTP and MCP', async () => {
    // The arguments made from the document pass each tool's input schema, so every call reaches its
    // operation, where scopes are checked (a call refused earlier, for its arguments, would prove nothing).
    for (const tool of t.app.tools) {
      const operation = document.paths[`/mcp/tools/${tool.name}`].post;
      const args = example(document, operation.requestBody.content['application/json'].schema) as Json;
      for (const when of [{}, ...(operation['x-scope-when'] ?? []).map((w: Json) => w.arguments)]) {
        const parsed = tool.inputSchema.safeParse({ ...args, ...when });
        expect(parsed.success, `${tool.name}: ${parsed.error?.message}`).toBe(true);
      }
    }
    const calls = [...httpCalls(), ...(await mcpCalls())];
    expect(calls.length).toBeGreaterThan(2 * t.app.tools.length);
    const wrong: string[] = [];
    for (const call of calls) {
      for (const scope of SCOPES) {
        const outcome = await call.send(keys[scope]);
        const expected = rank(scope) < rank(call.label);
        if (outcome.refused !== expected || (outcome.refused && outcome.scope !== call.label)) {
          wrong.push(
            `${call.what} labelled ${call.label}: a ${scope} key was ${outcome.refused ? `refused (needs ${outcome.scope})` : 'let through'}: ${outcome.detail}`,
          );
        }
      }
    }
    expect(wrong).toEqual([]);
  });
});
