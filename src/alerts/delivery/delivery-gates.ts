/**
 * Fairness of one instance's delivery workers. An attempt goes only when
 * - the instance has fewer than `maxInFlight` attempts under way;
 * - its owner has fewer than `ownerConcurrency` (one owner's hanging receivers take at most that
 *   share of the workers; the others keep theirs);
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
    if (mine >= this.#o.ownerConcurrency) {
      this.#waiting.add(owner);
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

  /** The attempt ended; `signal` is what it said of its destination. */
  settle(slot: Slot, signal: DestinationSignal): void {
    this.#inFlight--;
    const left = (this.#owners.get(slot.owner) ?? 1) - 1;
    if (left > 0) this.#owners.set(slot.owner, left);
    else this.#owners.delete(slot.owner);
    const probed = slot.destination !== null && this.#o.health.settle(slot.destination, signal);
    const waiting = this.#waiting.has(slot.owner);
    // An owner with nothing under way is at its share no more: the dispatcher's pass takes its rest.
    if (left === 0) this.#waiting.delete(slot.owner);
    if (waiting || probed) this.onTurn();
  }

  /** Owners with no slot free. */
  fullOwners(): string[] {
    const out: string[] = [];
    for (const [owner, n] of this.#owners) if (n >= this.#o.ownerConcurrency) out.push(owner);
    return out;
  }

  get ownerConcurrency(): number {
    return this.#o.ownerConcurrency;
  }
}
