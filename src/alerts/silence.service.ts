/**
 * Silences, each as the caller's principal (a silence belongs to whoever created it and silences
 * only that owner's alerts; anyone else's is NOT_FOUND, as an unknown id is; admins list every
 * owner's). Firing reads them in its own transaction (firing.ts), so they hold on every instance.
 */
import { randomUUID } from 'node:crypto';
import { ownerFilter, type Principal } from '../platform/access/principal.ts';
import type { Clock } from '../platform/clock.ts';
import { lockForTransaction } from '../platform/db/advisory-lock.ts';
import type { Executor } from '../platform/db/database.ts';
import { NotFoundError } from '../platform/errors.ts';
import { TooManySilencesError } from './alerts.errors.ts';
import { MAX_SILENCES_PER_OWNER, type Silence } from './silence.model.ts';
import { parseSilenceInput } from './silence-input.wire.ts';
import {
  countOpenSilences,
  deleteSilence,
  endSilence,
  insertSilence,
  listSilences,
} from './silences.repository.ts';

export interface SilenceServiceOptions {
  readonly db: Executor;
  readonly clock: Clock;
}

export class SilenceService {
  readonly #o: SilenceServiceOptions;

  constructor(options: SilenceServiceOptions) {
    this.#o = options;
  }

  /** The service's clock (a silence's state is read against it). */
  now(): Date {
    return this.#o.clock.now();
  }

  /**
   * Creates a silence from a wire body (silence-input.wire.ts), unless its owner has
   * MAX_SILENCES_PER_OWNER that have not ended (counted under a per-owner lock, so concurrent
   * creates never overshoot).
   */
  async create(principal: Principal, body: unknown): Promise<Silence> {
    const now = this.#o.clock.now();
    const definition = parseSilenceInput(body, now);
    const silence: Silence = {
      ...definition,
      owner: principal.id,
      id: randomUUID(),
      createdBy: principal.name,
      createdAt: now,
    };
    await this.#o.db.transaction(async (tx) => {
      await lockForTransaction(tx, 'alert_silences', principal.id);
      if ((await countOpenSilences(tx, principal.id, now)) >= MAX_SILENCES_PER_OWNER)
        throw new TooManySilencesError(MAX_SILENCES_PER_OWNER);
      await insertSilence(tx, silence);
    });
    return silence;
  }

  /** The caller's silences by start (an admin's: every owner's); `includeExpired` false: not ended. */
  list(principal: Principal, includeExpired: boolean): Promise<Silence[]> {
    return listSilences(this.#o.db, {
      owner: ownerFilter(principal),
      ...(includeExpired ? {} : { endingAfter: this.#o.clock.now() }),
    });
  }

  /** Ends one of the caller's silences now (one already ended is answered as it is). */
  async expire(principal: Principal, id: string): Promise<Silence> {
    const silence = await endSilence(this.#o.db, principal.id, id, this.#o.clock.now());
    if (!silence) throw new NotFoundError('silence', id);
    return silence;
  }

  async delete(principal: Principal, id: string): Promise<void> {
    if (!(await deleteSilence(this.#o.db, principal.id, id))) throw new NotFoundError('silence', id);
  }
}
