import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` diffs the tables in src/**/*.sql.ts against the last snapshot and writes a
// new SQL migration. Generation needs no database; migrations run at start (src/platform/db/migrate.ts).
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/platform/db/schema.ts',
  out: './src/platform/db/migrations',
  casing: 'snake_case',
});
