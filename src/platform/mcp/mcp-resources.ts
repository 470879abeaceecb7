import { UriTemplate } from '@modelcontextprotocol/sdk/shared/uriTemplate.js';

/** Values of a template's variables, percent-decoded (`vigil://prices/BTC%2FUSDT` -> `BTC/USDT`). */
export type ResourceParams = Readonly<Record<string, string>>;

/**
 * Runs a GraphQL operation as the caller of the MCP request, through the same pipeline as
 * `/graphql` and the tools (validation, rate limits, error masking, caller identity). Resolves with
 * the operation's `data`; rejects with an AppError carrying the operation's first error code
 * (`RATE_LIMITED`, `UNKNOWN_SYMBOL`, ...), which the platform maps to a JSON-RPC error.
 */
export type ResourceCall = <Data = Record<string, unknown>>(
  document: string,
  variables?: Readonly<Record<string, unknown>>,
) => Promise<Data>;

/**
 * A family of MCP resources named by one URI template, brought by a domain (see
 * ModuleDefinition.resources). The platform matches URIs, serves `resources/read`, and turns
 * `resources/subscribe` into a `watch` that lasts until the client unsubscribes or its session ends.
 */
export interface McpResourceTemplate {
  /** RFC 6570 template with simple `{name}` variables, e.g. `vigil://prices/{symbol}`. */
  readonly uriTemplate: string;
  readonly name: string;
  readonly title: string;
  readonly description: string;
  readonly mimeType: string;
  /**
   * The resource's current contents as a JSON value, read with `call` (a GraphQL operation run as
   * the requester). Throws a domain error when there is none (a code whose status is 404 becomes
   * "resource not found").
   */
  read(params: ResourceParams, call: ResourceCall): Promise<unknown>;
  /**
   * Calls `onChange` whenever the resource changes (how often at most is the template's business)
   * until the returned function is called. Rejects when the resource does not exist or the
   * subscriber may not read it: check that with `call`, as `read` would.
   */
  watch(params: ResourceParams, onChange: () => void, call: ResourceCall): Promise<() => void> | (() => void);
  /**
   * The concrete resources of this family that `resources/list` names (a template without
   * variables names itself; prices name the watched symbols), each readable as listed. Left out,
   * the family is only a template. Keep it bounded: the server pages the list, it does not cut it.
   */
  list?(): readonly ListedResource[];
}

/** One concrete resource as a template lists it; its MIME type is the template's. */
export interface ListedResource {
  readonly uri: string;
  readonly name: string;
  readonly title: string;
  readonly description?: string;
}

export interface MatchedResource {
  readonly template: McpResourceTemplate;
  readonly params: ResourceParams;
}

/** Finds the template a URI belongs to, and its variables. */
export class ResourceMatcher {
  readonly #compiled: ReadonlyArray<{ readonly template: McpResourceTemplate; readonly uri: UriTemplate }>;

  constructor(readonly templates: readonly McpResourceTemplate[]) {
    const seen = new Set<string>();
    this.#compiled = templates.map((template) => {
      if (seen.has(template.name)) throw new Error(`two MCP resource templates are named ${template.name}`);
      seen.add(template.name);
      return { template, uri: new UriTemplate(template.uriTemplate) };
    });
  }

  match(uri: string): MatchedResource | undefined {
    for (const { template, uri: pattern } of this.#compiled) {
      let variables: Record<string, string | string[]> | null;
      try {
        variables = pattern.match(uri);
      } catch {
        // The SDK refuses over-long URIs by throwing: no template names such a URI.
        return undefined;
      }
      if (!variables) continue;
      const params: Record<string, string> = {};
      for (const [name, value] of Object.entries(variables)) {
        if (typeof value !== 'string') return undefined;
        try {
          params[name] = decodeURIComponent(value);
        } catch {
          return undefined;
        }
      }
      return { template, params };
    }
    return undefined;
  }
}

/**
 * The resource subscriptions of one MCP session, bounded. A subscription is reserved before its
 * watch starts, so a burst of subscribe requests cannot overshoot the bound, and a watch that
 * resolves after its session closed (or after an unsubscribe) is stopped at once.
 */
export class ResourceSubscriptions {
  readonly #active = new Map<string, { stop: (() => void) | undefined; ended: boolean }>();
  #closed = false;

  /** @param tally shared by every session's subscriptions: how many are open in all (for metrics). */
  constructor(
    readonly max: number,
    private readonly tally: { count: number } = { count: 0 },
  ) {}

  get size(): number {
    return this.#active.size;
  }

  has(uri: string): boolean {
    return this.#active.has(uri);
  }

  /** Starts watching `uri`; `notify` runs on every change while the subscription lasts. */
  async add(
    uri: string,
    resource: MatchedResource,
    notify: (uri: string) => void,
    call: ResourceCall,
  ): Promise<void> {
    if (this.#closed) throw new SubscriptionLimitError('the session is closed');
    if (this.#active.has(uri)) return;
    if (this.#active.size >= this.max) {
      throw new SubscriptionLimitError(
        `at most ${this.max} resource subscriptions per session; unsubscribe from one first`,
      );
    }
    const entry: { stop: (() => void) | undefined; ended: boolean } = { stop: undefined, ended: false };
    this.#active.set(uri, entry);
    this.tally.count++;
    try {
      const stop = await resource.template.watch(
        resource.params,
        () => {
          if (!entry.ended) notify(uri);
        },
        call,
      );
      if (entry.ended) stop();
      else entry.stop = stop;
    } catch (error) {
      entry.ended = true;
      if (this.#active.get(uri) === entry) {
        this.#active.delete(uri);
        this.tally.count--;
      }
      throw error;
    }
  }

  remove(uri: string): void {
    const entry = this.#active.get(uri);
    if (!entry) return;
    this.#active.delete(uri);
    this.tally.count--;
    entry.ended = true;
    entry.stop?.();
  }

  /** Ends every subscription; later `add` calls fail. */
  close(): void {
    this.#closed = true;
    for (const uri of [...this.#active.keys()]) this.remove(uri);
  }
}

export class SubscriptionLimitError extends Error {}
