/**
 * Yoga keeps parse results (and parse errors) by document text. Its default cache counts entries,
 * not bytes, so 1,024 distinct documents padded with comments up to the body cap would stay in
 * memory for an hour. This one keeps only documents of ordinary size (GraphiQL's introspection
 * query is ~2 KB), so it holds at most MAX_ENTRIES x MAX_DOCUMENT_CHARS of client text; a larger
 * document is parsed again each time, which its token limit keeps cheap.
 */
export const MAX_ENTRIES = 1_024;
export const MAX_DOCUMENT_CHARS = 8_192;

export interface ParseCache<T> {
  get(key: string): T | undefined;
  set(key: string, value: T): void;
}

/** Least recently used first out. */
export function boundedParseCache<T>(
  maxEntries = MAX_ENTRIES,
  maxKeyChars = MAX_DOCUMENT_CHARS,
): ParseCache<T> {
  const entries = new Map<string, T>();
  return {
    get(key) {
      const value = entries.get(key);
      if (value !== undefined) {
        entries.delete(key);
        entries.set(key, value);
      }
      return value;
    },
    set(key, value) {
      if (key.length > maxKeyChars) return;
      entries.delete(key);
      entries.set(key, value);
      if (entries.size > maxEntries) entries.delete(entries.keys().next().value as string);
    },
  };
}
