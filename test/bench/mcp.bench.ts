import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { LATEST_PROTOCOL_VERSION, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { z } from 'zod';
import { bundledServer } from './bundled-server.ts';
import { summarize, table } from './stats.ts';

/**
 * What an MCP client waits for when it lists Vigil's tools. The official SDK client compiles every
 * tool's output schema (Ajv) when `listTools()` answers, so the size and shape of the schemas is
 * its wait. Vigil runs its code as `npm start` runs it (bundled-server.ts), over Streamable HTTP at
 * /mcp. Measured in the same run:
 *
 * - the size of the `tools/list` answer (the JSON-RPC message), against the same listing with the
 *   schemas as zod writes them (draft-07, as tools/list had them before they were made compact);
 * - the SDK client's `listTools()` on Vigil, on a fresh client each time (its compiled schemas
 *   belong to the client) and on one client called again and again, against the floor: the same
 *   `tools/list` request by plain fetch, answer read and parsed;
 * - the same fresh-client `listTools()` on a reference server (the SDK's own, in this process)
 *   that lists Vigil's tools once with the listed schemas and once with the schemas as zod writes
 *   them: the effect of the schemas alone, alternated so both see the same machine;
 * - the SDK's compilation alone (its own validator, a new one each round), of both sets.
 *
 * CPU columns are this process's CPU time per call (it runs the client and the servers). Goals:
 * an answer under 30 KB, and a fresh client's `listTools()` on Vigil under 150 ms.
 */
const GOAL_BYTES = 30 * 1024;
const GOAL_MS = 150;
const WARMUP = 5;
const FETCHES = 200;
const SAME_CLIENT = 60;
const FRESH_CLIENTS = 40;
const COMPILES = 40;

export async function run(): Promise<void> {
  const { buildApp, createDeps, modules, parseConfig } = await bundledServer();
  const dataDir = mkdtempSync(join(tmpdir(), 'vigil-bench-mcp-'));
  const config = parseConfig({ LOG_LEVEL: 'silent', DATA_DIR: dataDir, RATE_LIMIT_MAX: '1000000' });
  const app = buildApp(await createDeps(config), modules);
  const { url } = await app.start({ port: 0, host: '127.0.0.1' });
  const endpoint = `${url}/mcp`;
  const raw = await RawSession.open(endpoint);
  let reference: ReferenceServer | undefined;
  try {
    const listed = await raw.request('tools/list');
    const tools = (listed.message as { result: { tools: ListedTool[] } }).result.tools;
    const asZodWrites = zodListing(app.tools);
    const bytes = Buffer.byteLength(listed.text);
    const before = Buffer.byteLength(
      JSON.stringify({ jsonrpc: '2.0', id: 1, result: { tools: asZodWrites } }),
    );
    const sizeRow = (answer: string, count: number, size: number) => ({
      'tools/list answer': answer,
      tools: `${count}`,
      bytes: size,
      'x before': size / before,
    });
    process.stdout.write(
      `${table([
        sizeRow('listed (compact schemas)', tools.length, bytes),
        sizeRow('as zod writes them (before)', asZodWrites.length, before),
      ])}\n\n`,
    );

    const fetches = await timed(FETCHES, () => raw.request('tools/list'));
    await raw.close();
    const same = await sameClient(endpoint);
    reference = await referenceServer({ listed: tools, before: asZodWrites });
    const fresh = await freshClients([endpoint, reference.url('listed'), reference.url('before')]);
    const floor = summarize(fetches.wall);
    const row = (request: string, samples: Samples) => {
      const s = summarize(samples.wall);
      return {
        request,
        n: `${s.n}`,
        'p50 ms': s.p50,
        'p99 ms': s.p99,
        'x fetch p50': s.p50 / floor.p50,
        'cpu p50 ms': summarize(samples.cpu).p50,
      };
    };
    process.stdout.write(
      `${table([
        row('vigil: plain fetch tools/list (floor)', fetches),
        row('vigil: SDK listTools(), fresh client', fresh[0]!),
        row('vigil: SDK listTools(), same client', same),
        row('reference, listed schemas: fresh client', fresh[1]!),
        row('reference, as zod writes (before): fresh', fresh[2]!),
      ])}\n`,
    );
    const referenceRatio = summarize(fresh[1]!.wall).p50 / summarize(fresh[2]!.wall).p50;
    process.stdout.write(
      `fresh-client listTools(), listed schemas / before: ${referenceRatio.toFixed(2)}x (p50)\n\n`,
    );

    const outputs = (list: readonly ListedTool[]) =>
      list.flatMap((t) => (t.outputSchema ? [t.outputSchema] : []));
    // Alternated, so that both see the same machine (others may be busy on it).
    const compileListed: Samples = { wall: [], cpu: [] };
    const compileBefore: Samples = { wall: [], cpu: [] };
    for (let i = 0; i < WARMUP; i++) {
      compileAll(outputs(tools));
      compileAll(outputs(asZodWrites));
    }
    globalThis.gc?.();
    for (let i = 0; i < COMPILES; i++) {
      await measure(compileListed, () => compileAll(outputs(tools)));
      await measure(compileBefore, () => compileAll(outputs(asZodWrites)));
    }
    const compileRow = (schemas: string, samples: Samples) => {
      const s = summarize(samples.wall);
      const cpu = summarize(samples.cpu).p50;
      return {
        'SDK compiles the output schemas': schemas,
        'p50 ms': s.p50,
        'p99 ms': s.p99,
        'cpu p50 ms': cpu,
        'x before (cpu p50)': cpu / summarize(compileBefore.cpu).p50,
      };
    };
    process.stdout.write(
      `${table([
        compileRow('listed (compact)', compileListed),
        compileRow('as zod writes them (before)', compileBefore),
      ])}\n\n`,
    );

    const freshP50 = summarize(fresh[0]!.wall).p50;
    const verdict = (met: boolean) => (met ? 'met' : 'MISSED');
    process.stdout.write(
      `goal: tools/list answer under ${GOAL_BYTES / 1024} KB: ${(bytes / 1024).toFixed(1)} KB, ${verdict(bytes < GOAL_BYTES)}\n` +
        `goal: a fresh SDK client's listTools() under ${GOAL_MS} ms (p50): ${freshP50.toFixed(0)} ms, ${verdict(freshP50 < GOAL_MS)}\n`,
    );
  } finally {
    await raw.close();
    await reference?.close();
    await app.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

interface ListedTool {
  readonly name: string;
  readonly outputSchema?: Record<string, unknown>;
}

/** Wall and CPU milliseconds of each run (CPU: this process, which also runs the servers). */
interface Samples {
  readonly wall: number[];
  readonly cpu: number[];
}

/** `rounds` timed runs of `fn` after a few untimed ones. */
async function timed(rounds: number, fn: () => unknown): Promise<Samples> {
  for (let i = 0; i < WARMUP; i++) await fn();
  globalThis.gc?.();
  const samples: Samples = { wall: [], cpu: [] };
  for (let i = 0; i < rounds; i++) await measure(samples, fn);
  return samples;
}

async function measure(samples: Samples, fn: () => unknown): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await fn();
  samples.wall.push(performance.now() - t0);
  const cpu = process.cpuUsage(cpu0);
  samples.cpu.push((cpu.user + cpu.system) / 1000);
}

async function sameClient(endpoint: string): Promise<Samples> {
  const { client, transport } = await connect(endpoint);
  try {
    return await timed(SAME_CLIENT, () => client.listTools());
  } finally {
    await transport.terminateSession().catch(() => {});
    await client.close();
  }
}

/**
 * For each endpoint, `listTools()` on a client connected for it (the connection is not timed),
 * the endpoints taken in turn so that each sees the same machine.
 */
async function freshClients(endpoints: readonly string[]): Promise<Samples[]> {
  const samples = endpoints.map((): Samples => ({ wall: [], cpu: [] }));
  const warm: Samples = { wall: [], cpu: [] };
  globalThis.gc?.();
  for (let i = 0; i < WARMUP + FRESH_CLIENTS; i++) {
    for (const [n, endpoint] of endpoints.entries()) {
      const { client, transport } = await connect(endpoint);
      await measure(i < WARMUP ? warm : samples[n]!, () => client.listTools());
      await transport.terminateSession().catch(() => {});
      await client.close();
    }
  }
  return samples;
}

async function connect(endpoint: string) {
  const client = new Client({ name: 'vigil-bench', version: '1.0.0' });
  const transport = new StreamableHTTPClientTransport(new URL(endpoint));
  await client.connect(transport);
  return { client, transport };
}

/** What the SDK client does with a listing's output schemas, on a validator of its own. */
function compileAll(schemas: readonly Record<string, unknown>[]): void {
  const validator = new AjvJsonSchemaValidator();
  for (const schema of schemas) validator.getValidator(schema);
}

/** The listing with each schema as zod writes it in draft-07, as tools/list had it before. */
function zodListing(
  tools: readonly {
    name: string;
    inputSchema: z.ZodType;
    definition: { title: string; description: string; outputSchema: z.ZodType; annotations?: object };
  }[],
): ListedTool[] {
  const draft7 = (schema: z.ZodType, io: 'input' | 'output') =>
    z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any' }) as Record<string, unknown>;
  return tools.map((tool) => {
    const { title, description, annotations, outputSchema } = tool.definition;
    const output = draft7(outputSchema, 'output');
    return {
      name: tool.name,
      title,
      description,
      inputSchema: draft7(tool.inputSchema, 'input'),
      ...(output.type === 'object' ? { outputSchema: output } : {}),
      ...(annotations ? { annotations: { title, ...annotations } } : {}),
    };
  });
}

interface ReferenceServer {
  url(listing: 'listed' | 'before'): string;
  close(): Promise<void>;
}

/**
 * The SDK's own server (stateless Streamable HTTP, JSON answers) answering `tools/list` with a
 * fixed listing per path: the same transport for both listings, so that only the schemas differ.
 */
async function referenceServer(
  listings: Record<'listed' | 'before', readonly ListedTool[]>,
): Promise<ReferenceServer> {
  const http = createServer((req, res) => {
    const listing = listings[req.url === '/before' ? 'before' : 'listed'];
    const server = new Server({ name: 'reference', version: '1.0.0' }, { capabilities: { tools: {} } });
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listing as never }));
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    server
      .connect(transport)
      .then(() => transport.handleRequest(req, res))
      .catch(() => res.writeHead(500).end());
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  return {
    url: (listing) => `${base}/${listing}`,
    close: () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  };
}

/** A Streamable HTTP session by plain fetch: the floor an SDK client is measured against. */
class RawSession {
  #nextId = 1;
  #closed = false;

  private constructor(
    private readonly endpoint: string,
    private readonly sessionId: string,
  ) {}

  static async open(endpoint: string): Promise<RawSession> {
    const init = await post(endpoint, undefined, {
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: {
        protocolVersion: LATEST_PROTOCOL_VERSION,
        capabilities: {},
        clientInfo: { name: 'vigil-bench-fetch', version: '1.0.0' },
      },
    });
    const sessionId = init.response.headers.get('mcp-session-id');
    if (!sessionId) throw new Error(`initialize answered ${init.response.status} without a session`);
    const session = new RawSession(endpoint, sessionId);
    await post(endpoint, sessionId, { jsonrpc: '2.0', method: 'notifications/initialized' });
    return session;
  }

  /** One request, its answer read whole and parsed; `text` is the JSON-RPC message. */
  async request(method: string): Promise<{ text: string; message: unknown }> {
    const { response, body } = await post(this.endpoint, this.sessionId, {
      jsonrpc: '2.0',
      id: this.#nextId++,
      method,
    });
    if (response.status !== 200) throw new Error(`${method} answered ${response.status}`);
    // The answer comes as JSON or as one server-sent event whose data is the message.
    const text = response.headers.get('content-type')?.startsWith('text/event-stream')
      ? body
          .split('\n')
          .filter((line) => line.startsWith('data:'))
          .map((line) => line.slice(5).trimStart())
          .join('\n')
      : body;
    return { text, message: JSON.parse(text) };
  }

  /** Ends the session (once; a session left open would expire on its own). */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await fetch(this.endpoint, { method: 'DELETE', headers: { 'mcp-session-id': this.sessionId } }).catch(
      () => {},
    );
  }
}

async function post(endpoint: string, sessionId: string | undefined, message: object) {
  const response = await fetch(endpoint, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': LATEST_PROTOCOL_VERSION,
      ...(sessionId ? { 'mcp-session-id': sessionId } : {}),
    },
    body: JSON.stringify(message),
  });
  return { response, body: await response.text() };
}
