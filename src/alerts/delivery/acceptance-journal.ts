/**
 * The acceptances of this data directory's instances, noted in a local file the moment a receiver
 * accepts, before the database record. A record waits for the database (on the embedded database,
 * behind every other statement); an instance killed meanwhile left the delivery claimed and
 * unrecorded, and it was sent again once its claim lapsed. The note is one small append (a write
 * to the operating system, which keeps it when the process dies, though not when the machine does),
 * and at start, and with every sweep, the notes are replayed: a delivery they name that no record
 * caught up with is recorded as delivered by that attempt.
 *
 * Replay moves the file aside first, so notes appended meanwhile go to a new file and none is
 * lost or replayed twice. Instances that share a data directory share the file; replaying another
 * live instance's note only records what it is about to record itself.
 */
import { appendFileSync, readFileSync, renameSync, rmSync } from 'node:fs';
import type { Executor } from '../../platform/db/database.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import { type AttemptRecord, recordJournaledAcceptances } from './delivery.repository.ts';

/** Replayed in one statement at most. */
const REPLAY_BATCH = 500;

export class AcceptanceJournal {
  readonly #path: string | undefined;
  readonly #logger: Logger;
  #failed = false;

  /** No path: nothing is noted (the record alone counts). */
  constructor(path: string | undefined, logger: Logger) {
    this.#path = path;
    this.#logger = logger;
  }

  /** Whether acceptances are noted (a path was given and appending to it has not failed). */
  get enabled(): boolean {
    return this.#path !== undefined && !this.#failed;
  }

  /** Notes an accepted attempt; never throws (the database record follows anyway). */
  note(record: AttemptRecord): void {
    if (!this.#path) return;
    try {
      appendFileSync(this.#path, `${JSON.stringify(noteOf(record))}\n`);
    } catch (error) {
      if (this.#failed) return;
      this.#failed = true;
      this.#logger.warn(
        { code: (error as NodeJS.ErrnoException).code ?? null },
        'alert deliveries: acceptances cannot be noted locally; only their database records count',
      );
    }
  }

  /** Records the noted acceptances no record caught up with; how many. */
  async replay(db: Executor): Promise<number> {
    if (!this.#path) return 0;
    const aside = `${this.#path}.replaying`;
    const fresh = `${this.#path}.moving`;
    try {
      // Atomic: a note appended from now on starts a new file.
      renameSync(this.#path, fresh);
      // Added to what an unfinished replay left aside (the database failed): it goes too.
      appendFileSync(aside, readFileSync(fresh));
      rmSync(fresh);
    } catch {
      // Nothing noted since the last replay.
    }
    let text: string;
    try {
      text = readFileSync(aside, 'utf8');
    } catch {
      return 0;
    }
    const records = parseNotes(text);
    let recorded = 0;
    for (let i = 0; i < records.length; i += REPLAY_BATCH) {
      recorded += await recordJournaledAcceptances(db, records.slice(i, i + REPLAY_BATCH));
    }
    rmSync(aside, { force: true });
    return recorded;
  }
}

/** What a note keeps of the record (no error text: it was accepted). */
interface Note {
  readonly d: string;
  readonly n: number;
  readonly o: string;
  readonly a: string;
  readonly m: AttemptRecord['method'];
  readonly c: number | null;
  readonly l: number;
  readonly t: string;
  readonly u: string;
}

function noteOf(r: AttemptRecord): Note {
  return {
    d: r.deliveryId,
    n: r.attempt,
    o: r.owner,
    a: r.alertId,
    m: r.method,
    c: r.responseCode,
    l: Math.round(r.latencyMs),
    t: r.attemptedAt.toISOString(),
    u: r.updatedAt.toISOString(),
  };
}

/** The notes' records; a line cut short by the kill is skipped. */
export function parseNotes(text: string): AttemptRecord[] {
  const out: AttemptRecord[] = [];
  for (const line of text.split('\n')) {
    if (!line) continue;
    let n: Note;
    try {
      n = JSON.parse(line) as Note;
    } catch {
      continue;
    }
    if (typeof n.d !== 'string' || typeof n.n !== 'number') continue;
    out.push({
      deliveryId: n.d,
      attempt: n.n,
      owner: n.o,
      alertId: n.a,
      method: n.m,
      outcome: 'delivered',
      status: 'delivered',
      responseCode: n.c,
      latencyMs: n.l,
      error: null,
      attemptedAt: new Date(n.t),
      updatedAt: new Date(n.u),
      nextAttemptAt: null,
    });
  }
  return out;
}
