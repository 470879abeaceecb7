import { defineConfig } from 'drizzle-kit';

// `npm run db:generate` diffs the tables in every src/**/*.sql.ts file against the last snapshot and
// writes a new SQL migration to src/migrations. Generation needs no database; migrations run at start.
export default defineConfig({
  dialect: 'postgresql',
  schema: './src/**/*.sql.ts',
  out: './src/migrations',
  casing: 'snake_case',
});
