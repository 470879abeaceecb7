/**
 * The browser side of the console's browser tests: headless Chromium (the distribution's package)
 * driven by playwright-core in a context that reaches no host but loopback, axe-core, the page's
 * weight from resource timing, and screenshots.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  type Browser,
  type BrowserContext,
  type BrowserContextOptions,
  chromium,
  type Page,
} from 'playwright-core';
import { expect } from 'vitest';

// ---------------------------------------------------------------------------------------------
// The browser

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

export function isLoopback(url: string): boolean {
  try {
    const { protocol, hostname } = new URL(url);
    // data: and blob: URLs never leave the browser.
    if (protocol === 'data:' || protocol === 'blob:' || protocol === 'about:') return true;
    return LOOPBACK.has(hostname);
  } catch {
    return false;
  }
}

/**
 * Chromium with every host name but loopback resolving to nothing: even a request that got past
 * the context's routes could not reach another host.
 */
export function launchBrowser(executablePath: string): Promise<Browser> {
  return chromium.launch({
    executablePath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--disable-dev-shm-usage',
      '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost',
    ],
  });
}

export interface GuardedContext {
  readonly context: BrowserContext;
  /** Requests (HTTP and WebSocket) to any host but loopback: aborted, and listed here. */
  readonly blocked: string[];
  /** Uncaught exceptions in the pages ('pageerror'). */
  readonly pageErrors: string[];
  /** console.error messages in the pages (the tests judge which are expected). */
  readonly consoleErrors: string[];
}

/**
 * A fresh context (its own profile: no cache, no storage) whose every request to a host other
 * than loopback is aborted and recorded, so a test can assert that nothing left the machine.
 */
export async function guardedContext(
  browser: Browser,
  options: BrowserContextOptions = {},
): Promise<GuardedContext> {
  const context = await browser.newContext({
    viewport: { width: 1280, height: 800 },
    colorScheme: 'light',
    reducedMotion: 'reduce',
    ...options,
  });
  const guarded: GuardedContext = { context, blocked: [], pageErrors: [], consoleErrors: [] };
  await context.route('**/*', (route) => {
    const url = route.request().url();
    if (isLoopback(url)) return route.continue();
    guarded.blocked.push(url);
    return route.abort('blockedbyclient');
  });
  await context.routeWebSocket(
    (url) => !isLoopback(url.href),
    (socket) => {
      guarded.blocked.push(socket.url());
      return socket.close({ code: 1008, reason: 'only loopback' });
    },
  );
  context.on('page', (page) => {
    page.on('pageerror', (error) =>
      guarded.pageErrors.push(`${page.url()}: ${error.stack ?? error.message}`),
    );
    page.on('console', (message) => {
      if (message.type() === 'error') guarded.consoleErrors.push(`${page.url()}: ${message.text()}`);
    });
  });
  return guarded;
}

// ---------------------------------------------------------------------------------------------
// axe-core

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeProblem {
  readonly id: string;
  readonly impact: string;
  readonly help: string;
  readonly targets: string[];
}

/**
 * Runs axe-core on the page and returns its serious and critical violations. The page's CSP
 * forbids inline scripts (an injected <script> element would be refused); code evaluated through
 * the DevTools protocol is not subject to it, so axe is evaluated into the page's main world.
 */
export async function axeProblems(page: Page): Promise<AxeProblem[]> {
  const present = await page.evaluate('typeof window.axe === "object"');
  if (!present) await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate<AxeProblem[]>(`(async () => {
    const result = await window.axe.run(document, { resultTypes: ['violations'] });
    return result.violations
      .filter((v) => v.impact === 'serious' || v.impact === 'critical')
      .map((v) => ({ id: v.id, impact: v.impact, help: v.help,
        targets: v.nodes.map((n) => n.target.join(' ') + (n.failureSummary ? ' — ' + n.failureSummary.replace(/\\s+/g, ' ').slice(0, 200) : '')) }));
  })()`);
  return violations;
}

/** Violations in words, one line per element: the test's failure message. */
export function describeAxe(where: string, problems: readonly AxeProblem[]): string {
  return problems
    .map((p) => `${where}: ${p.id} (${p.impact}) ${p.help}\n${p.targets.map((t) => `    ${t}`).join('\n')}`)
    .join('\n');
}

// ---------------------------------------------------------------------------------------------
// Page weight

export interface PageWeight {
  /** Bytes on the wire (headers and compressed bodies) for the page and its files. */
  readonly transferred: number;
  /** Their compressed bodies only. */
  readonly encoded: number;
  /** Their bodies once decompressed. */
  readonly decoded: number;
  /** From navigation start to the end of the load event, in ms. */
  readonly loadMs: number;
  readonly files: { name: string; transferred: number; decoded: number }[];
}

/** The first load's cost from the browser's resource timing: the HTML, style sheets and scripts. */
export async function pageWeight(page: Page): Promise<PageWeight> {
  return page.evaluate<PageWeight>(`(() => {
    const nav = performance.getEntriesByType('navigation')[0];
    const assets = performance.getEntriesByType('resource')
      .filter((r) => new URL(r.name).pathname.startsWith('/console/assets/'));
    const entries = [nav, ...assets];
    const sum = (key) => entries.reduce((total, e) => total + e[key], 0);
    return {
      transferred: sum('transferSize'),
      encoded: sum('encodedBodySize'),
      decoded: sum('decodedBodySize'),
      loadMs: Math.round(nav.loadEventEnd - nav.startTime),
      files: entries.map((e) => ({ name: new URL(e.name).pathname, transferred: e.transferSize, decoded: e.decodedBodySize })),
    };
  })()`);
}

// ---------------------------------------------------------------------------------------------
// Screenshots

/** Screenshots of one run, in a folder under the system's temporary directory; each path is printed. */
export class Screenshots {
  readonly folder = mkdtempSync(join(tmpdir(), 'vigil-console-screens-'));
  readonly taken: string[] = [];

  async take(page: Page, name: string): Promise<string> {
    const path = join(this.folder, `${String(this.taken.length + 1).padStart(2, '0')}-${name}.png`);
    // From the top: a full-page capture of a scrolled page draws the sticky header mid-page.
    await page.evaluate('window.scrollTo(0, 0)');
    await page.screenshot({ path, fullPage: true });
    this.taken.push(path);
    console.log(`screenshot: ${path}`);
    return path;
  }
}

// ---------------------------------------------------------------------------------------------
// Steps of the journeys

/** Waits in a journey: generous, for a busy 2-core machine; conditions, never fixed sleeps. */
export const WAIT = { timeout: 30_000, interval: 100 };

/** Opens a view by its address and waits for its title. */
export async function open(page: Page, hash: string, title: string | RegExp): Promise<void> {
  await page.evaluate(`location.hash = ${JSON.stringify(hash)}`);
  await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor(WAIT);
  await loaded(page);
}

/** Waits until no "Loading …" status is shown. */
export async function loaded(page: Page): Promise<void> {
  await expect
    .poll(
      () =>
        page
          .getByRole('status')
          .filter({ hasText: /^Loading\b/ })
          .count(),
      WAIT,
    )
    .toBe(0);
}

/** axe-core on the page as it is: no serious or critical violation. */
export async function expectAccessible(page: Page, where: string): Promise<void> {
  const problems = await axeProblems(page);
  expect(problems, describeAxe(where, problems)).toEqual([]);
}

export async function setTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate(`localStorage.setItem('vigil.theme', ${JSON.stringify(JSON.stringify(theme))})`);
  await page.reload();
  await expect.poll(() => page.evaluate('document.documentElement.dataset.theme'), WAIT).toBe(theme);
}
