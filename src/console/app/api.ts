/**
 * The console's only way to Vigil: the public GraphQL API, queries and mutations over HTTP (urql)
 * and subscriptions over graphql-ws, both on /graphql of the page's own origin. The API key (when
 * the user signed in) is kept in session storage and sent as `Authorization: Bearer` and in
 * graphql-ws `connectionParams`.
 */
import { Client, type CombinedError, fetchExchange, subscriptionExchange } from '@urql/core';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { useEffect, useRef, useState } from 'preact/hooks';
import { Store } from './store.ts';

const KEY_STORAGE = 'vigil.apiKey';

export type Connection = 'connecting' | 'connected' | 'reconnecting' | 'refused';

/** The live connection's state, for the status indicator and the "reconnected" notice. */
export const connection = new Store<{ state: Connection; since: number; drops: number }>({
  state: 'connecting',
  since: Date.now(),
  drops: 0,
});

/** Called when the server refuses the live connection's key (the shell then asks for one). */
let onRefused: () => void = () => {};
export function whenRefused(handler: () => void): void {
  onRefused = handler;
}

/** The API key in use ('' when none). */
export const apiKey = new Store<string>(readKey());

function readKey(): string {
  try {
    return sessionStorage.getItem(KEY_STORAGE) ?? '';
  } catch {
    return '';
  }
}

export function signIn(key: string): void {
  try {
    sessionStorage.setItem(KEY_STORAGE, key);
  } catch {
    // Storage refused (a private window's quota): the key lasts for this page only.
  }
  apiKey.set(key);
}

export function signOut(): void {
  try {
    sessionStorage.removeItem(KEY_STORAGE);
  } catch {
    // Nothing stored.
  }
  apiKey.set('');
}

function wsUrl(): string {
  const { protocol, host } = window.location;
  return `${protocol === 'https:' ? 'wss' : 'ws'}://${host}/graphql`;
}

let ws: WsClient | undefined;
let client: Client | undefined;
let clientKey: string | undefined;

/** Closes that say the key is refused (none, unknown, revoked, expired): retrying cannot help. */
const REFUSED = new Set([4401, 4403]);
let generation = 0;

function build(key: string): Client {
  ws?.dispose();
  // Events of the socket just disposed are not news about the new one.
  const mine = ++generation;
  const current = () => mine === generation;
  connection.set({ state: 'connecting', since: Date.now(), drops: 0 });
  ws = createWsClient({
    url: wsUrl(),
    lazy: false,
    keepAlive: 10_000,
    retryAttempts: Number.POSITIVE_INFINITY,
    shouldRetry: (event) => !REFUSED.has((event as { code?: number }).code ?? 0),
    // 1 s, 2 s, 4 s ... at most 10 s between attempts, with jitter.
    retryWait: (retries) =>
      new Promise((resolve) =>
        setTimeout(resolve, Math.min(10_000, 1_000 * 2 ** retries) * (0.75 + Math.random() / 2)),
      ),
    connectionParams: () => (key ? { apiKey: key } : {}),
    // What went wrong shows as the connection's state, not as a console error.
    onNonLazyError: () => {},
    on: {
      connected: () => {
        if (current()) connection.set({ ...connection.get(), state: 'connected', since: Date.now() });
      },
      closed: (event) => {
        if (!current()) return;
        const was = connection.get();
        if (REFUSED.has((event as { code?: number }).code ?? 0)) {
          // The server wants a (valid) key: the shell shows the sign-in.
          connection.set({ state: 'refused', since: Date.now(), drops: was.drops });
          onRefused();
        } else if (was.state === 'connected') {
          connection.set({ state: 'reconnecting', since: Date.now(), drops: was.drops + 1 });
        }
      },
    },
  });
  const socket = ws;
  return new Client({
    url: '/graphql',
    requestPolicy: 'network-only',
    preferGetMethod: false,
    fetchOptions: (): RequestInit => ({
      headers: (key ? { authorization: `Bearer ${key}` } : {}) as Record<string, string>,
    }),
    exchanges: [
      fetchExchange,
      subscriptionExchange({
        forwardSubscription: (request) => ({
          subscribe: (sink) => ({
            unsubscribe: socket.subscribe({ ...request, query: request.query ?? '' }, sink),
          }),
        }),
      }),
    ],
  });
}

/** The client for the current key (a new one, with a new socket, when the key changes). */
export function api(): Client {
  const key = apiKey.get();
  if (!client || clientKey !== key) {
    client = build(key);
    clientKey = key;
  }
  return client;
}

/** An API error in words: the message, and the field it names when it names one. */
export interface ApiError {
  readonly message: string;
  readonly code?: string;
  /** Field path -> message, from `extensions.issues` or `extensions.field`. */
  readonly fields: Readonly<Record<string, string>>;
}

export function apiError(error: CombinedError | Error | ApiError | unknown): ApiError {
  if (isApiError(error)) return error;
  const combined = error as Partial<CombinedError>;
  if (combined.networkError) {
    return { message: 'Vigil could not be reached. Is the server running?', fields: {} };
  }
  const first = combined.graphQLErrors?.[0];
  if (!first) return { message: error instanceof Error ? error.message : String(error), fields: {} };
  const ext = (first.extensions ?? {}) as {
    code?: string;
    field?: string;
    issues?: { field?: string; path?: string; message: string }[];
  };
  const fields: Record<string, string> = {};
  for (const issue of ext.issues ?? []) {
    const name = issue.field ?? issue.path;
    if (name && !fields[name]) fields[name] = issue.message;
  }
  if (ext.field && !fields[ext.field]) fields[ext.field] = first.message;
  return { message: first.message, ...(ext.code ? { code: ext.code } : {}), fields };
}

/** An error `mutate` or `fetchQuery` threw (already in words). */
function isApiError(error: unknown): error is ApiError {
  return (
    typeof error === 'object' &&
    error !== null &&
    !(error instanceof Error) &&
    typeof (error as ApiError).message === 'string' &&
    typeof (error as ApiError).fields === 'object'
  );
}

export interface QueryState<T> {
  readonly data: T | undefined;
  readonly error: ApiError | undefined;
  readonly loading: boolean;
  readonly refetch: () => void;
}

/** Runs a query when mounted and when `deps` change; `refetch` runs it again. */
export function useQuery<T>(
  query: string,
  variables: Record<string, unknown> = {},
  deps: readonly unknown[] = [],
): QueryState<T> {
  const [state, setState] = useState<{ data?: T; error?: ApiError; loading: boolean }>({ loading: true });
  const [round, setRound] = useState(0);
  const key = useStore(apiKey);
  // A query that failed while Vigil was away runs again once the connection is back.
  const back = useReconnected();
  const failed = useRef(false);
  failed.current = state.error !== undefined;
  useEffect(() => {
    if (back > 0 && failed.current) setRound((r) => r + 1);
  }, [back]);
  useEffect(() => {
    let live = true;
    setState((s) => ({ ...s, loading: true }));
    api()
      .query(query, variables)
      .toPromise()
      .then((result) => {
        if (!live) return;
        if (result.error) setState({ error: apiError(result.error), loading: false });
        else setState({ data: result.data as T, loading: false });
      });
    return () => {
      live = false;
    };
  }, [query, key, round, ...deps]);
  return { ...state, refetch: () => setRound((r) => r + 1) } as QueryState<T>;
}

/** A mutation: resolves with the data, or throws an ApiError. */
export async function mutate<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const result = await api().mutation(query, variables).toPromise();
  if (result.error) throw apiError(result.error);
  return result.data as T;
}

/** A query outside a component: resolves with the data, or throws an ApiError. */
export async function fetchQuery<T>(query: string, variables: Record<string, unknown> = {}): Promise<T> {
  const result = await api().query(query, variables).toPromise();
  if (result.error) throw apiError(result.error);
  return result.data as T;
}

/**
 * A subscription while mounted (and `enabled`): `onData` gets each result's data; `onError` each
 * error in words. Re-subscribes when `deps` or the key change; the socket resubscribes by itself
 * after a reconnection.
 */
export function useSubscription<T>(
  query: string,
  variables: Record<string, unknown>,
  onData: (data: T) => void,
  deps: readonly unknown[] = [],
  onError?: (error: ApiError) => void,
  enabled = true,
): void {
  const handlers = useRef({ onData, onError });
  handlers.current = { onData, onError };
  const key = useStore(apiKey);
  // A subscription that ended in an error (the server went away) starts again once it is back.
  const back = useReconnected();
  const ended = useRef(false);
  const [round, setRound] = useState(0);
  useEffect(() => {
    if (back > 0 && ended.current) setRound((r) => r + 1);
  }, [back]);
  useEffect(() => {
    if (!enabled) return;
    ended.current = false;
    const { unsubscribe } = api()
      .subscription(query, variables)
      .subscribe((result) => {
        if (result.error) {
          ended.current = true;
          handlers.current.onError?.(apiError(result.error));
        } else if (result.data) handlers.current.onData(result.data as T);
      });
    return unsubscribe;
  }, [query, key, enabled, round, ...deps]);
}

/** How many times the live connection came back (0 until it first drops and returns). */
function useReconnected(): number {
  const { state, drops } = useStore(connection);
  return state === 'connected' ? drops : 0;
}

/** A store's value, re-rendering when it changes. */
export function useStore<T>(store: Store<T>): T {
  const [value, setValue] = useState(store.get());
  useEffect(() => store.subscribe(setValue), [store]);
  return value;
}
