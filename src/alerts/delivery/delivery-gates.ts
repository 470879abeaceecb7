/**
 * Fairness of one instance's delivery workers. An attempt goes only when
 * - the instance has fewer than `maxInFlight` attempts under way;
 * - its owner has fewer than `ownerConcurrency` under way (its share), or the attempt uses a worker
 *   no one else needs, toward a proven receiver: a quarter of a share of the workers stays free for
 *   other owners, and the destination answered within the last minute and has not failed since (a
 *   burst to a healthy receiver may use the spare workers; a new or hanging one gets the share
 *   alone);
 * - its destination is not paused (destination-health.ts).
 * Otherwise the delivery is held (delivery.runner.ts gives it back as `held`), and the dispatcher
 * takes it again when its owner frees a slot or its destination's pause ends: `onTurn` says when.
 */
import type { Admission, DestinationHealth, DestinationSignal } from './destination-health.ts';

export interface DeliveryGatesOptions {
  readonly maxInFlight: number;
  readonly ownerConcurrency: number;
  readonly health: DestinationHealth;
}

/** Why an attempt may not go now. */
export type Refusal =
  | { readonly go: false; readonly reason: 'busy' | 'owner'; readonly until: null }
  | { readonly go: false; readonly reason: 'destination'; readonly until: number };

/** A slot taken by `admit`, to give back with `settle`. */
export interface Slot {
  readonly go: true;
  readonly owner: string;
  readonly destination: string | null;
}

export class DeliveryGates {
  readonly #o: DeliveryGatesOptions;
  readonly #owners = new Map<string, number>();
  /** Owners whose deliveries this instance held for their share: their freed slots wake the dispatcher. */
  readonly #waiting = new Set<string>();
  /** Attempts waiting for a worker to free (admitSoon). */
  readonly #slotWaiters = new Set<() => void>();
  /** Of those, the ones held toward a destination not proven healthy: the dispatcher gives them their share alone. */
  readonly #shareOnly = new Set<string>();
  #inFlight = 0;
  /** Called when held deliveries may have a turn (an owner freed a slot, a probe ended). */
  onTurn: () => void = () => {};

  constructor(options: DeliveryGatesOptions) {
    this.#o = options;
  }

  get inFlight(): number {
    return this.#inFlight;
  }

  get free(): number {
    return Math.max(0, this.#o.maxInFlight - this.#inFlight);
  }

  get health(): DestinationHealth {
    return this.#o.health;
  }

  /** Takes a slot for an attempt of `owner` to `destination` (null: it has none, e.g. its alert is gone). */
  admit(owner: string, destination: string | null): Slot | Refusal {
    if (this.#inFlight >= this.#o.maxInFlight) return { go: false, reason: 'busy', until: null };
    const mine = this.#owners.get(owner) ?? 0;
    if (mine >= this.#o.ownerConcurrency && !this.#spare(destination)) {
      this.#waiting.add(owner);
      if (destination === null || !this.#o.health.healthy(destination)) this.#shareOnly.add(owner);
      return { go: false, reason: 'owner', until: null };
    }
    if (destination !== null) {
      const admission: Admission = this.#o.health.admit(destination);
      if (!admission.go) return { go: false, reason: 'destination', until: admission.until };
    }
    this.#owners.set(owner, mine + 1);
    this.#inFlight++;
    return { go: true, owner, destination };
  }

  /**
   * As `admit`, but an attempt refused for want of a worker or of its owner's share, toward a
   * proven receiver, waits up to `waitMs` for one to free: attempts to such receivers end within
   * milliseconds, and a short wait costs less than holding the delivery and taking it again. An
   * attempt toward a new, failing or paused destination is never kept waiting (its worker would be
   * held by the very receiver that is slow).
   */
  async admitSoon(owner: string, destination: string | null, waitMs: number): Promise<Slot | Refusal> {
    let result = this.admit(owner, destination);
    if (result.go || result.reason === 'destination') return result;
    if (destination === null || !this.#o.health.healthy(destination)) return result;
    const deadline = performance.now() + waitMs;
    while (!result.go && result.reason !== 'destination') {
      const left = deadline - performance.now();
      if (left <= 0) return result;
      let timer: ReturnType<typeof setTimeout> | undefined;
      await new Promise<void>((resolve) => {
        this.#slotWaiters.add(resolve);
        timer = setTimeout(() => {
          this.#slotWaiters.delete(resolve);
          resolve();
        }, left);
      });
      clearTimeout(timer);
      result = this.admit(owner, destination);
    }
    return result;
  }

  /** The attempt ended; `signal` is what it said of its destination. */
  settle(slot: Slot, signal: DestinationSignal): void {
    this.#inFlight--;
    // Whoever waits for a worker looks again (each checks its own owner and destination).
    const waiters = [...this.#slotWaiters];
    this.#slotWaiters.clear();
    for (const wake of waiters) wake();
    const left = (this.#owners.get(slot.owner) ?? 1) - 1;
    if (left > 0) this.#owners.set(slot.owner, left);
    else this.#owners.delete(slot.owner);
    const probed = slot.destination !== null && this.#o.health.settle(slot.destination, signal);
    const waiting = this.#waiting.has(slot.owner);
    // An owner with nothing under way is at its share no more: the dispatcher's pass takes its rest.
    if (left === 0) {
      this.#waiting.delete(slot.owner);
      this.#shareOnly.delete(slot.owner);
    }
    if (waiting || probed) this.onTurn();
  }

  /** Whether an attempt past its owner's share may use a worker: one no one else needs, to a healthy destination. */
  #spare(destination: string | null): boolean {
    if (this.#inFlight + 1 > this.#o.maxInFlight - this.#reserve) return false;
    return destination !== null && this.#o.health.healthy(destination);
  }

  /**
   * How many more attempts each owner may start now, as far as the gates can tell without their
   * destinations: the owners with attempts under way, each with its number, and the number for any
   * other. An owner held for its share toward a destination not proven healthy may start up to its
   * share; the others may also use the spare workers (their destinations decide when they run).
   */
  allowances(): { readonly owners: string[]; readonly allowed: number[]; readonly otherwise: number } {
    const share = this.#o.ownerConcurrency;
    const spare = this.#inFlight + 1 <= this.#o.maxInFlight - this.#reserve;
    const owners: string[] = [];
    const allowed: number[] = [];
    for (const [owner, n] of this.#owners) {
      const cap = spare && !this.#shareOnly.has(owner) ? this.ownerLimit : share;
      owners.push(owner);
      allowed.push(Math.max(0, cap - n));
    }
    return { owners, allowed, otherwise: spare ? this.ownerLimit : share };
  }

  /** The most attempts one owner may have under way here (its share, and the spare workers). */
  get ownerLimit(): number {
    return Math.max(this.#o.ownerConcurrency, this.#o.maxInFlight - this.#reserve);
  }

  /**
   * Workers a burst past its owner's share leaves free: a quarter of a share. A burst goes only to
   * a receiver that answers quickly, so its workers free within milliseconds; the reserve is for
   * the rare receiver that stops answering in the middle of one.
   */
  get #reserve(): number {
    return Math.max(1, Math.ceil(this.#o.ownerConcurrency / 4));
  }
}
