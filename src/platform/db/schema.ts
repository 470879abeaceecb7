// Every table of every domain, for drizzle's typed handle and drizzle-kit. Domains own their
// `*.sql.ts` files; this file only gathers them.

export * from '../../fk-dsl/tasks.sql.ts';
export * from '../server-info/instances.sql.ts';
