/**
 * A small path-template router shared by HTTP routes and WebSocket upgrades. Templates use
 * `:name` segments (`/api/alerts/:id`) and a trailing `*` for a prefix (`/mcp/*`). The template,
 * not the concrete path, is what metrics are labelled with.
 */
export interface Match<T> {
  readonly value: T;
  readonly template: string;
  readonly params: Readonly<Record<string, string>>;
}

interface Entry<T> {
  readonly template: string;
  readonly segments: readonly string[];
  readonly prefix: boolean;
  readonly value: T;
}

export class PathTable<T> {
  readonly #entries: Entry<T>[] = [];

  add(template: string, value: T): this {
    if (!template.startsWith('/')) throw new Error(`route template must start with '/': ${template}`);
    const prefix = template.endsWith('/*');
    const body = prefix ? template.slice(0, -2) : template;
    this.#entries.push({ template, segments: splitPath(body), prefix, value });
    return this;
  }

  /** Every entry whose template matches, in registration order. */
  matchAll(pathname: string): Match<T>[] {
    const parts = splitPath(pathname);
    const matches: Match<T>[] = [];
    for (const entry of this.#entries) {
      const params = matchSegments(entry, parts);
      if (params) matches.push({ value: entry.value, template: entry.template, params });
    }
    return matches;
  }

  match(pathname: string): Match<T> | undefined {
    return this.matchAll(pathname)[0];
  }
}

function splitPath(path: string): string[] {
  return path.split('/').filter((s) => s.length > 0);
}

function matchSegments<T>(entry: Entry<T>, parts: readonly string[]): Record<string, string> | undefined {
  const { segments, prefix } = entry;
  if (prefix ? parts.length < segments.length : parts.length !== segments.length) return undefined;
  const params: Record<string, string> = {};
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i]!;
    const part = parts[i]!;
    if (seg.startsWith(':')) {
      let decoded: string;
      try {
        decoded = decodeURIComponent(part);
      } catch {
        return undefined;
      }
      params[seg.slice(1)] = decoded;
    } else if (seg !== part) {
      return undefined;
    }
  }
  return params;
}
