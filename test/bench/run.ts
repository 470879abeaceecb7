import { readdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/**
 * `npm run bench [name-filter]`: runs every test/bench/*.bench.ts in turn. Each benchmark measures
 * its own baseline in the same run and prints figures and ratios; none of them asserts a time.
 */
const dir = fileURLToPath(new URL('.', import.meta.url));
const filter = process.argv[2];
const files = readdirSync(dir)
  .filter((f) => f.endsWith('.bench.ts') && (!filter || f.includes(filter)))
  .sort();

for (const file of files) {
  process.stdout.write(`\n## ${file.replace(/\.bench\.ts$/, '')}\n`);
  const mod = (await import(new URL(file, import.meta.url).href)) as { run: () => Promise<void> };
  await mod.run();
}
