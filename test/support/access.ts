import { type Client, createClient } from 'graphql-ws';
import WebSocket from 'ws';
import type { App } from '../../src/app.ts';
import { graphql } from './app.ts';

/** ADMIN_API_KEY of the apps these tests start (at least 24 characters, as config demands). */
export const ADMIN_KEY = 'vigil-test-bootstrap-admin-key-0001';

/** Shaped like an issued key, so it reaches the key store's lookup instead of failing the shape check. */
export const UNKNOWN_KEY = `vgl_zzzzzzzz_${'A'.repeat(43)}`;

export type ApiScope = 'READ' | 'WRITE' | 'ADMIN';

export interface IssuedKey {
  readonly id: string;
  readonly prefix: string;
  readonly secret: string;
}

const CREATE = /* GraphQL */ `
  mutation Create($name: String!, $scopes: [ApiScope!]!, $expiresAt: DateTime) {
    createApiKey(name: $name, scopes: $scopes, expiresAt: $expiresAt) {
      apiKey { id prefix scopes }
      secret
    }
  }`;

/** Creates a key through GraphQL as `by` (the bootstrap admin unless told); fails loudly otherwise. */
export async function issueKey(
  app: App,
  name: string,
  scopes: readonly ApiScope[],
  options: { by?: string | null; expiresAt?: Date } = {},
): Promise<IssuedKey> {
  const by = options.by === undefined ? ADMIN_KEY : options.by;
  const { status, body } = await graphql<{
    createApiKey: { apiKey: { id: string; prefix: string }; secret: string };
  }>(
    app,
    CREATE,
    { name, scopes, expiresAt: options.expiresAt?.toISOString() ?? null },
    by === null ? {} : bearer(by),
  );
  if (status !== 200 || !body.data?.createApiKey) {
    throw new Error(`createApiKey answered ${status}: ${JSON.stringify(body)}`);
  }
  const { apiKey, secret } = body.data.createApiKey;
  return { id: apiKey.id, prefix: apiKey.prefix, secret };
}

export async function revokeKey(app: App, id: string, by = ADMIN_KEY): Promise<void> {
  const { status, body } = await graphql(
    app,
    'mutation Revoke($id: ID!) { revokeApiKey(id: $id) { id revokedAt } }',
    { id },
    bearer(by),
  );
  if (status !== 200 || body.errors)
    throw new Error(`revokeApiKey answered ${status}: ${JSON.stringify(body)}`);
}

export const bearer = (key: string): Record<string, string> => ({ authorization: `Bearer ${key}` });
export const xApiKey = (key: string): Record<string, string> => ({ 'x-api-key': key });

// biome-ignore lint/suspicious/noExplicitAny: JSON answers are checked by the expectations, not by types.
type Json = any;

/** The error code of any surface's error body: GraphQL, REST, or MCP's JSON-RPC refusal. */
export function errorCode(body: Json): string | undefined {
  return body?.errors?.[0]?.extensions?.code ?? body?.error?.code ?? body?.error?.data?.code;
}

/** The scope a 403 names, wherever the surface puts it. */
export function errorScope(body: Json): string | undefined {
  return body?.errors?.[0]?.extensions?.scope ?? body?.error?.details?.scope ?? body?.error?.data?.scope;
}

export interface Closed {
  readonly code: number;
  readonly reason: string;
}

/** A plain `ws` client that records messages and how it closed. */
export class Socket {
  readonly socket: WebSocket;
  readonly messages: Array<Record<string, unknown>> = [];
  readonly closed: Promise<Closed>;
  /** Whether the handshake completed (a refused caller is closed after it, with 4401 or 4403). */
  readonly opened: Promise<boolean>;
  #waiters: Array<() => void> = [];

  constructor(url: string, headers: Record<string, string> = {}) {
    this.socket = new WebSocket(url, { headers });
    this.socket.on('message', (data) => {
      this.messages.push(JSON.parse(String(data)) as Record<string, unknown>);
      for (const wake of this.#waiters.splice(0)) wake();
    });
    this.socket.on('error', () => {});
    this.opened = new Promise((resolve) => {
      this.socket.once('open', () => resolve(true));
      this.socket.once('unexpected-response', () => resolve(false));
      this.socket.once('close', () => resolve(false));
    });
    this.closed = new Promise((resolve) =>
      this.socket.once('close', (code, reason) => resolve({ code, reason: String(reason) })),
    );
  }

  send(message: unknown): void {
    this.socket.send(JSON.stringify(message));
  }

  /** The first message (old or new) of `type`, within `timeoutMs`. */
  async next(type: string, timeoutMs = 5_000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const found = this.messages.find((m) => m.type === type);
      if (found) return found;
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`no ${type} message; got ${JSON.stringify(this.messages)}`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.#waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.close();
  }
}

export interface GraphqlWs {
  readonly client: Client;
  /** Resolves with the close event of the first socket the client opened. */
  readonly closed: Promise<Closed>;
  /** How many times the client completed `connection_init` (1 while one socket stays up). */
  connections(): number;
}

/** A graphql-ws client with upgrade headers and connectionParams, which never retries. */
export function graphqlWs(
  url: string,
  options: { headers?: Record<string, string>; connectionParams?: Record<string, unknown> } = {},
): GraphqlWs {
  const headers = options.headers ?? {};
  class WithHeaders extends WebSocket {
    constructor(address: string, protocols?: string | string[]) {
      super(address, protocols, { headers });
    }
  }
  let connected = 0;
  let onClosed: (closed: Closed) => void = () => {};
  const closed = new Promise<Closed>((resolve) => {
    onClosed = resolve;
  });
  const client = createClient({
    url,
    webSocketImpl: WithHeaders,
    retryAttempts: 0,
    lazy: true,
    ...(options.connectionParams ? { connectionParams: options.connectionParams } : {}),
    on: {
      connected: () => {
        connected++;
      },
      closed: (event) => {
        const { code, reason } = event as { code: number; reason: string };
        onClosed({ code, reason: String(reason) });
      },
    },
  });
  return { client, closed, connections: () => connected };
}

export type FirstResult =
  | { readonly kind: 'result'; readonly data?: Json; readonly errors?: Json[] }
  | { readonly kind: 'closed'; readonly code: number; readonly reason: string };

/**
 * The first result of an operation, or how the socket closed before one came. A subscription is
 * ended after its first result; a query or mutation is left to complete by itself, since ending one
 * whose `complete` is already on its way releases the client's socket twice (graphql-ws 6) and
 * closes it under the other operations.
 */
export function firstResult(client: Client, query: string): Promise<FirstResult> {
  const subscription = /^\s*subscription\b/.test(query);
  return new Promise((resolve, reject) => {
    const stop = client.subscribe<Json>(
      { query },
      {
        next: (result) => {
          if (subscription) stop();
          resolve({ kind: 'result', ...(result as { data?: Json; errors?: Json[] }) });
        },
        error: (error) => {
          const event = error as { code?: unknown; reason?: unknown };
          if (typeof event?.code === 'number') {
            resolve({ kind: 'closed', code: event.code, reason: String(event.reason) });
          } else if (Array.isArray(error)) {
            resolve({ kind: 'result', errors: error });
          } else reject(error);
        },
        // After a result, a completion changes nothing (the promise is settled).
        complete: () => reject(new Error('completed without a result')),
      },
    );
  });
}
