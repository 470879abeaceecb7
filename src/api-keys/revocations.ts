import type { Logger } from '../platform/observability/logger.ts';

/** Revocations already announced to this instance's listeners (a local revoke comes back by LISTEN). */
const MAX_REMEMBERED_REVOCATIONS = 1_000;

/**
 * Tells this instance's listeners of each revoked key once, whether the revocation was made here or
 * heard from another instance (or both). A listener that throws is logged and the others still hear.
 */
export class RevocationAnnouncer {
  readonly #announced = new Set<string>();
  readonly #listeners = new Set<(keyId: string) => void>();

  constructor(private readonly logger: Logger) {}

  /** `listener` hears every revocation from now on; returns the unsubscribe. */
  listen(listener: (keyId: string) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  announce(keyId: string): void {
    if (this.#announced.has(keyId)) return;
    if (this.#announced.size >= MAX_REMEMBERED_REVOCATIONS) {
      this.#announced.delete(this.#announced.values().next().value!);
    }
    this.#announced.add(keyId);
    for (const listener of this.#listeners) {
      try {
        listener(keyId);
      } catch (error) {
        this.logger.warn({ err: error, keyId }, 'an API key revocation listener failed');
      }
    }
  }
}
