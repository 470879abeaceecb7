import { randomBytes } from 'node:crypto';
import postgres from 'postgres';

/** A database of its own on a Postgres server, for one test app or benchmark run. */
export interface FreshDatabase {
  /** DATABASE_URL of the new database (the server's URL with its name). */
  readonly url: string;
  /** Drops it, closing whatever connections are still open on it. */
  drop(): Promise<void>;
}

/** Creates a database with a unique name (`<prefix>_<pid>_<random>`) on the server at `serverUrl`. */
export async function createFreshDatabase(serverUrl: string, prefix: string): Promise<FreshDatabase> {
  const name = `${prefix}_${process.pid}_${randomBytes(4).toString('hex')}`;
  await onServer(serverUrl, (admin) => admin.unsafe(`create database ${name}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: () => onServer(serverUrl, (admin) => admin.unsafe(`drop database if exists ${name} with (force)`)),
  };
}

/** Runs `body` with a fresh database's URL; the database is dropped afterwards, whatever happens. */
export async function withFreshDatabase<T>(
  serverUrl: string,
  prefix: string,
  body: (url: string) => Promise<T>,
): Promise<T> {
  const database = await createFreshDatabase(serverUrl, prefix);
  try {
    return await body(database.url);
  } finally {
    await database.drop();
  }
}

async function onServer(serverUrl: string, run: (admin: postgres.Sql) => Promise<unknown>): Promise<void> {
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await run(admin);
  } finally {
    await admin.end();
  }
}
