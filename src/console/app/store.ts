/** A value that components and modules can read, set and follow. */
export class Store<T> {
  #value: T;
  readonly #listeners = new Set<(value: T) => void>();

  constructor(value: T) {
    this.#value = value;
  }

  get(): T {
    return this.#value;
  }

  set(value: T): void {
    if (Object.is(value, this.#value)) return;
    this.#value = value;
    for (const listener of [...this.#listeners]) listener(value);
  }

  /** Calls `listener` on every change; returns the function that stops it. */
  subscribe(listener: (value: T) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

/** A value kept in local storage (the watch list, the theme), as JSON. */
export class StoredValue<T> extends Store<T> {
  readonly #key: string;

  constructor(key: string, fallback: T) {
    super(StoredValue.#read(key, fallback));
    this.#key = key;
  }

  override set(value: T): void {
    super.set(value);
    try {
      localStorage.setItem(this.#key, JSON.stringify(value));
    } catch {
      // Storage refused: the value lasts for this page only.
    }
  }

  static #read<T>(key: string, fallback: T): T {
    try {
      const text = localStorage.getItem(key);
      return text === null ? fallback : (JSON.parse(text) as T);
    } catch {
      return fallback;
    }
  }
}
