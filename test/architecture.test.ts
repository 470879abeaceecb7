import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { modules } from '../src/modules.ts';

/**
 * The layering rules of docs/architecture.md, checked on the code's own imports (type imports
 * included): the platform knows no domain, quant is a leaf, there are no import cycles, and every
 * table file belongs to a module.
 */
const src = fileURLToPath(new URL('../src', import.meta.url));

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return /\.(ts|mjs)$/.test(entry.name) && !entry.name.endsWith('.test.ts') ? [path] : [];
  });
}

/** Relative imports of a file (static, dynamic and type-only), resolved to absolute paths. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [
    ...text.matchAll(/(?:import|export)\s[^'";]*?from\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/import\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/import\(\s*['"]([^'"]+)['"]\s*\)/g),
  ].map((m) => m[1]!);
  return specifiers.filter((s) => s.startsWith('.')).map((s) => resolve(dirname(file), s));
}

const files = sourceFiles(src);
const graph = new Map(files.map((f) => [f, importsOf(f)]));
const rel = (f: string) => relative(src, f);

describe('layering', () => {
  it('the platform imports no domain and none of the composition files', () => {
    const offending = [...graph]
      .filter(([file]) => rel(file).startsWith('platform/'))
      .flatMap(([file, imports]) =>
        imports.filter((i) => !rel(i).startsWith('platform/')).map((i) => `${rel(file)} -> ${rel(i)}`),
      );
    expect(offending).toEqual([]);
  });

  it("the console's browser code reaches nothing of the server: it imports only itself and packages", () => {
    const app = join(src, 'console', 'app');
    const browserFiles = (dir: string): string[] =>
      readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
        const path = join(dir, entry.name);
        if (entry.isDirectory()) return browserFiles(path);
        return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
      });
    const offending = browserFiles(app).flatMap((file) =>
      importsOf(file)
        .filter((i) => relative(app, i).startsWith('..'))
        .map((i) => `${rel(file)} -> ${rel(i)}`),
    );
    expect(offending).toEqual([]);
  });

  it('quant imports nothing outside itself', () => {
    const offending = [...graph]
      .filter(([file]) => rel(file).startsWith('quant/'))
      .flatMap(([file, imports]) =>
        imports.filter((i) => !rel(i).startsWith('quant/')).map((i) => `${rel(file)} -> ${rel(i)}`),
      );
    expect(offending).toEqual([]);
  });

  it('no domain imports the composition root (app, deps, main, modules, schema)', () => {
    const root = new Set(['app.ts', 'deps.ts', 'main.ts', 'mcp-stdio.ts', 'modules.ts', 'schema.ts']);
    const offending = [...graph]
      .filter(([file]) => rel(file).includes('/') && !rel(file).startsWith('cli/'))
      .flatMap(([file, imports]) =>
        imports.filter((i) => root.has(rel(i))).map((i) => `${rel(file)} -> ${rel(i)}`),
      );
    expect(offending).toEqual([]);
  });

  it('the builder and the GraphQL context name no domain: they import only the platform and each other', () => {
    const allowed = (i: string) =>
      rel(i).startsWith('platform/') || ['builder.ts', 'context.ts'].includes(rel(i));
    const offending = [...graph]
      .filter(([file]) => ['builder.ts', 'context.ts'].includes(rel(file)))
      .flatMap(([file, imports]) =>
        imports.filter((i) => !allowed(i)).map((i) => `${rel(file)} -> ${rel(i)}`),
      );
    expect(offending).toEqual([]);
  });

  it("a resolver reads only its own module's dependencies, through its module's accessor", () => {
    const graphqlFiles = files.filter((f) => f.endsWith('.graphql.ts') && rel(f).includes('/'));
    expect(graphqlFiles.length).toBeGreaterThan(10);
    const offending: string[] = [];
    for (const file of graphqlFiles) {
      const domain = rel(file).split('/')[0]!;
      const text = readFileSync(file, 'utf8');
      // The context's dependencies are opaque (`object`); reading them directly is the one way around.
      if (/[\w)\]]\.deps\b(?!\.ts)/.test(text))
        offending.push(`${rel(file)} reads the context's deps directly`);
      for (const imported of graph.get(file) ?? []) {
        if (imported.endsWith('.deps.ts') && rel(imported).split('/')[0] !== domain) {
          offending.push(`${rel(file)} -> ${rel(imported)} (another module's dependencies)`);
        }
      }
    }
    expect(offending).toEqual([]);
  });

  it("each module's declared dependencies are the ones its accessor reads (one *.deps.ts per domain)", () => {
    const moduleFiles = files.filter((f) => f.endsWith('.module.ts'));
    expect(moduleFiles.length).toBe(modules.length);
    for (const file of moduleFiles) {
      const text = readFileSync(file, 'utf8');
      const declared = /defineModule<(\w+)>/.exec(text)?.[1];
      const depsFile = (graph.get(file) ?? []).find((i) => i.endsWith('.deps.ts'));
      expect(depsFile, `${rel(file)} imports its dependencies from a *.deps.ts beside it`).toBeDefined();
      const depsText = readFileSync(depsFile!, 'utf8');
      expect(depsText, `${rel(file)}: defineModule<${declared}>`).toMatch(
        new RegExp(`export interface ${declared}\\b[\\s\\S]*moduleDeps<${declared}>\\(\\)`),
      );
    }
  });

  it('has no import cycles', () => {
    const cycles: string[] = [];
    const state = new Map<string, 'open' | 'done'>();
    const stack: string[] = [];
    const visit = (file: string) => {
      state.set(file, 'open');
      stack.push(file);
      for (const next of graph.get(file) ?? []) {
        if (!graph.has(next)) continue;
        if (state.get(next) === 'open') cycles.push(stack.slice(stack.indexOf(next)).map(rel).join(' -> '));
        else if (!state.has(next)) visit(next);
      }
      stack.pop();
      state.set(file, 'done');
    };
    for (const file of graph.keys()) if (!state.has(file)) visit(file);
    expect(cycles).toEqual([]);
  });
});

describe('modules', () => {
  it('every table of every src/**/*.sql.ts file is listed by a module', async () => {
    const listed = new Set(modules.flatMap((m) => (m.tables ?? []).flatMap((t) => Object.values(t))));
    const tableFiles = files.filter((f) => f.endsWith('.sql.ts'));
    expect(tableFiles.length).toBeGreaterThan(0);
    for (const file of tableFiles) {
      const exported = Object.values((await import(file)) as Record<string, unknown>);
      for (const table of exported) expect(listed.has(table), `${rel(file)} is not in any module`).toBe(true);
    }
  });

  it('module names are unique', () => {
    const names = modules.map((m) => m.name);
    expect(new Set(names).size).toBe(names.length);
  });
});
