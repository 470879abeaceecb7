/**
 * The console in a real browser: headless Chromium (the distribution's package, as CI installs it)
 * driven by playwright-core against the built bundle on the embedded database, with demo activity
 * and watchdogs running, and a local webhook receiver. No request may leave loopback: the browser
 * resolves no other host, every other request is aborted and recorded, and each journey ends by
 * asserting that none was. Each journey saves screenshots (their paths are printed) and runs
 * axe-core on the views it passes through.
 */
import type { Browser, Page } from 'playwright-core';
import { afterAll, afterEach, beforeAll, describe, expect, it, type TestContext } from 'vitest';
import { findChromium } from './support/chromium.ts';
import {
  axeProblems,
  describeAxe,
  expectAccessible,
  type GuardedContext,
  guardedContext,
  isLoopback,
  launchBrowser,
  loaded,
  open,
  pageWeight,
  Screenshots,
  setTheme,
  WAIT,
} from './support/console-browser.ts';
import {
  createKeyWithCli,
  graphql,
  startVigil,
  startWebhookReceiver,
  type VigilServer,
  type WebhookReceiver,
} from './support/console-server.ts';

const CHROMIUM = findChromium();
const JOURNEY_MS = 120_000;

describe('Chromium for the console tests', () => {
  it('is installed (CI requires it)', (ctx) => {
    if (CHROMIUM) return;
    if (process.env.VIGIL_REQUIRE_CHROMIUM)
      throw new Error('VIGIL_REQUIRE_CHROMIUM is set but no chromium binary was found');
    ctx.skip('no chromium or chromium-browser binary on the PATH (set CHROMIUM_BIN, or install chromium)');
  });
});

// One browser for the file, launched by the first block that needs it.
let browser: Promise<Browser> | undefined;
const theBrowser = () => {
  browser ??= launchBrowser(CHROMIUM!);
  return browser;
};
const shots = new Screenshots();
afterAll(async () => {
  await (await browser)?.close();
  if (shots.taken.length > 0)
    console.log(`console screenshots (${shots.taken.length}) in ${shots.folder}:\n${shots.taken.join('\n')}`);
});

// ---------------------------------------------------------------------------------------------
// Helpers of the journeys

/**
 * After every journey: nothing asked of another host, no uncaught exception in a page. A failed
 * journey first leaves a screenshot of each page it had open.
 */
async function expectCleanRun(
  guard: GuardedContext,
  ctx: TestContext,
  expected: readonly RegExp[] = [],
): Promise<void> {
  if (ctx.task.result?.state === 'fail') {
    for (const page of guard.context.pages()) await shots.take(page, 'FAILED').catch(() => {});
  }
  expect(guard.blocked, 'requests to hosts other than loopback').toEqual([]);
  expect(guard.pageErrors, 'uncaught exceptions in the page').toEqual([]);
  const unexpected = guard.consoleErrors.filter((line) => !expected.some((e) => e.test(line)));
  expect(unexpected, 'console errors in the page').toEqual([]);
  guard.consoleErrors.length = 0;
}

// ---------------------------------------------------------------------------------------------
// The console on an open server (no sign-in), with demo activity. The server, its receiver and
// its browser context serve the first block and the last (the live events on the Overview opened
// first: new demo events come once a minute, so that block waits while the others run).

let server: VigilServer;
let receiver: WebhookReceiver;
let guard: GuardedContext;
/** The Overview, opened first and never reloaded: new events must reach it live. */
let overview: Page;
let lastEventAtStart = '';

describe.skipIf(!CHROMIUM)('the console on an open server with demo activity', () => {
  beforeAll(async () => {
    receiver = await startWebhookReceiver();
    [server] = await Promise.all([
      startVigil({
        SIMULATED_ACTIVITY: 'demo',
        ALERT_DELIVERY_ALLOWED_HOSTS: '127.0.0.1',
        WATCHDOGS_RUN: 'true',
      }),
      theBrowser(),
    ]);
    guard = await guardedContext(await theBrowser());
  }, 120_000);

  afterEach((ctx) => expectCleanRun(guard, ctx));

  it('blocks and records a request to any host but loopback (the guard the journeys rely on)', async () => {
    const page = await guard.context.newPage();
    await expect(page.goto('http://example.com/')).rejects.toThrow();
    expect(guard.blocked).toEqual(['http://example.com/']);
    expect(isLoopback(`${server.url}/`)).toBe(true);
    guard.blocked.length = 0;
    await page.close();
  });

  it('serves the page to a browser at / under its CSP, and the JSON index to other clients', async () => {
    overview = await guard.context.newPage();
    const response = await overview.goto(`${server.url}/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    const csp = response?.headers()['content-security-policy'] ?? '';
    expect(csp).toContain("default-src 'none'");
    expect(csp).toContain("script-src 'self'");
    expect(csp).not.toContain('unsafe-inline');
    await overview.getByRole('heading', { level: 1, name: 'Overview', exact: true }).waitFor(WAIT);
    await loaded(overview);
    const drawnMs = await overview.evaluate<number>('Math.round(performance.now())');

    const weight = await pageWeight(overview);
    const kB = (bytes: number) => `${(bytes / 1024).toFixed(1)} kB`;
    console.log(
      `console first load of /: ${kB(weight.transferred)} transferred (compressed bodies ${kB(weight.encoded)}, ` +
        `${kB(weight.decoded)} decompressed) in ${weight.files.length} files; load event at ${weight.loadMs} ms, ` +
        `Overview drawn with its data at ${drawnMs} ms\n` +
        weight.files.map((f) => `  ${f.name} ${kB(f.transferred)} (${kB(f.decoded)})`).join('\n'),
    );
    // The ceiling: no more than GraphiQL's 2.4 MB gzip.
    expect(weight.transferred).toBeLessThan(2.4 * 1024 * 1024);

    const index = await fetch(`${server.url}/`, { headers: { accept: 'application/json' } });
    expect(index.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await index.json()).toMatchObject({ name: 'vigil', graphql: expect.any(String) });
  });

  it(
    'Overview: the watchdogs board, the live feed with its filters, the counts by severity',
    async () => {
      const page = overview;
      const board = page.getByRole('region', { name: 'Watchdogs' });
      const feed = page.getByRole('region', { name: 'Live events' });
      await board.waitFor(WAIT);
      // One tile per watchdog, its name visible.
      const names = await graphql<{ watchdogs: { name: string }[] }>(server.url, '{ watchdogs { name } }');
      expect(names.data?.watchdogs).toHaveLength(8);
      for (const { name } of names.data?.watchdogs ?? [])
        await board.getByText(name, { exact: true }).waitFor(WAIT);
      for (const label of ['Watchdog', 'Severity'])
        await feed.getByRole('combobox', { name: label }).waitFor(WAIT);
      await feed
        .getByRole('searchbox', { name: 'Asset' })
        .or(feed.getByRole('textbox', { name: 'Asset' }))
        .waitFor(WAIT);
      await page.getByRole('region', { name: 'Events by severity (24 h)' }).waitFor(WAIT);
      // Demo activity: the first checks report events at once; the feed lists them.
      const events = feed.getByRole('listitem').getByRole('button');
      await expect.poll(() => events.count(), WAIT).toBeGreaterThan(0);
      // The newest event now; the last journey waits for later ones on this same page.
      const newest = await graphql<{ watchdogEvents: { events: { id: string }[] } }>(
        server.url,
        '{ watchdogEvents(limit: 1) { events { id } } }',
      );
      lastEventAtStart = newest.data?.watchdogEvents.events[0]?.id ?? '';
      await page.evaluate('window.__notReloaded = true');
      await shots.take(page, 'overview');
      await expectAccessible(page, 'Overview (light)');
    },
    JOURNEY_MS,
  );

  it(
    'Markets: the watch list adds and removes a symbol',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/markets`);
      await page.getByRole('heading', { level: 1, name: 'Markets', exact: true }).waitFor(WAIT);
      await page.getByLabel('Add symbol').fill('MSFT');
      await page.getByRole('button', { name: 'Add', exact: true }).click();
      const row = page
        .getByRole('row')
        .filter({ has: page.getByRole('link', { name: 'MSFT', exact: true }) });
      await row.waitFor(WAIT);
      await row.getByRole('button', { name: 'Remove MSFT' }).waitFor(WAIT);
      await loaded(page);
      await shots.take(page, 'markets');
      await expectAccessible(page, 'Markets (light)');
      await row.getByRole('button', { name: 'Remove MSFT' }).click();
      await expect.poll(() => row.count(), WAIT).toBe(0);
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'a symbol page draws candles and a streamed tick moves the last one',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/markets/BTC%2FUSDT`);
      await page.getByRole('heading', { level: 1, name: 'BTC/USDT', exact: true }).waitFor(WAIT);
      for (const name of ['Interval', 'Range']) await page.getByRole('combobox', { name }).waitFor(WAIT);
      for (const name of ['SMA 20', 'EMA 20', 'Bollinger 20'])
        await page.getByRole('checkbox', { name }).waitFor(WAIT);
      const chart = page.getByTestId('price-chart');
      const read = async () => ({
        candles: Number(await chart.getAttribute('data-candles')),
        ticks: Number(await chart.getAttribute('data-ticks')),
        close: await chart.getAttribute('data-last-close'),
        time: await chart.getAttribute('data-last-time'),
      });
      await expect.poll(async () => (await read()).candles, WAIT).toBeGreaterThan(0);
      const before = await read();
      expect(before.time).toMatch(/^\d{4}-\d\d-\d\dT/);
      await expect
        .poll(async () => {
          const now = await read();
          return now.ticks > before.ticks && (now.close !== before.close || now.time !== before.time);
        }, WAIT)
        .toBe(true);
      await loaded(page);
      await shots.take(page, 'symbol-btc-usdt');
      await expectAccessible(page, 'symbol page BTC/USDT (light)');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'Alerts: a field error from Vigil, fixed; a test-send reaches the receiver; its delivery in the log',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/alerts`);
      await page.getByRole('heading', { level: 1, name: 'Alerts', exact: true }).waitFor(WAIT);
      await page.getByRole('button', { name: 'New alert' }).click();
      await page.getByLabel('Alert id').fill('btc-webhook');
      await page.getByLabel('Name', { exact: true }).fill('BTC events to a webhook');
      await page.getByLabel('Description').fill('Every watchdog event, posted to the desk');
      await page.getByRole('combobox', { name: 'Trigger' }).waitFor(WAIT);
      await page.getByRole('checkbox', { name: 'Webhook' }).check();
      const url = page.getByLabel('Webhook URL');
      // A private address: only the server judges it (ALERT_DELIVERY_ALLOWED_HOSTS allows loopback only).
      await url.fill('http://10.0.0.1/x');
      await page.getByLabel('Cooldown (seconds)').fill('0');
      const refused = page.waitForResponse(
        (r) => r.url().endsWith('/graphql') && /createAlert/.test(r.request().postData() ?? ''),
      );
      await page.getByRole('button', { name: 'Create alert' }).click();
      const answer = (await (await refused).json()) as {
        errors?: { extensions?: Record<string, unknown> }[];
      };
      expect(JSON.stringify(answer.errors)).toContain('webhook_config.url');
      await expect.poll(() => url.getAttribute('aria-invalid'), WAIT).toBe('true');
      const errorId = (await url.getAttribute('aria-describedby'))
        ?.split(' ')
        .find((id) => id.endsWith('-error'));
      expect(errorId).toBeTruthy();
      const fieldError = page.locator(`[id="${errorId}"]`);
      expect(await fieldError.getAttribute('role')).toBe('alert');
      expect((await fieldError.textContent())?.trim()).not.toBe('');
      await shots.take(page, 'alerts-form-field-error');
      await expectAccessible(page, 'Alerts, form open with a field error (light)');

      await url.fill(`${receiver.url}/hook`);
      await page.getByRole('button', { name: 'Create alert' }).click();
      const row = page.getByRole('row').filter({ hasText: 'btc-webhook' });
      await row.waitFor(WAIT);
      await row.getByRole('button', { name: 'Test-send' }).click();
      const results = page.getByRole('region', { name: 'Test-send results' });
      await expect
        .poll(async () => (await results.textContent().catch(() => '')) ?? '', WAIT)
        .toMatch(/delivered/i);
      expect(await results.textContent()).toContain(`${receiver.url}/hook`);
      await expect.poll(() => receiver.posts.filter((p) => p.path === '/hook').length, WAIT).toBe(1);

      await row.getByRole('button', { name: 'Deliveries' }).click();
      const log = page.getByRole('region', { name: 'Deliveries' });
      await expect
        .poll(
          async () =>
            (await log
              .getByRole('table')
              .textContent()
              .catch(() => '')) ?? '',
          WAIT,
        )
        .toMatch(/delivered/);
      await loaded(page);
      await shots.take(page, 'alerts-test-send-and-deliveries');
      await expectAccessible(page, 'Alerts with test-send results and deliveries (light)');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'Alerts: a silence is created (after Vigil refused its length, on the field typed), listed, and expired',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/alerts`);
      await page.getByRole('heading', { level: 1, name: 'Alerts', exact: true }).waitFor(WAIT);
      await page.getByRole('button', { name: 'New silence' }).click();
      const form = page.getByRole('region', { name: 'New silence' });
      await form
        .getByRole('group', { name: 'Event types' })
        .getByRole('checkbox', { name: 'flash crash' })
        .check();
      await form.getByRole('group', { name: 'Severities' }).getByRole('checkbox', { name: 'high' }).check();
      await form.getByLabel('Assets').fill('AAPL');
      await form.getByLabel('Comment').fill('AAPL feed maintenance');
      // 400 days: only the server knows the bound (366); its error on `ends_at` lands on the duration typed.
      const duration = form.getByRole('textbox', { name: 'Duration' });
      await duration.fill('400');
      await form.getByRole('combobox', { name: 'Unit' }).selectOption('DAYS');
      await form.getByRole('button', { name: 'Create silence' }).click();
      await expect.poll(() => duration.getAttribute('aria-invalid'), WAIT).toBe('true');
      const errorId = (await duration.getAttribute('aria-describedby'))
        ?.split(' ')
        .find((id) => id.endsWith('-error'));
      expect(await page.locator(`[id="${errorId}"]`).textContent()).toMatch(/366 days/);
      await shots.take(page, 'alerts-silence-form-field-error');
      await expectAccessible(page, 'Alerts, silence form with a field error (light)');

      await duration.fill('2');
      await form.getByRole('combobox', { name: 'Unit' }).selectOption('HOURS');
      await form.getByRole('button', { name: 'Create silence' }).click();
      const list = page.getByRole('region', { name: 'Silences', exact: true });
      const row = list.getByRole('row').filter({ hasText: 'AAPL feed maintenance' });
      await row.waitFor(WAIT);
      expect(await row.textContent()).toMatch(/active.*flash crash; severity high; on AAPL/);
      expect(await form.count()).toBe(0);
      const [stored] =
        (
          await graphql<{ alertSilences: { id: string; state: string; matchers: { assets: string[] } }[] }>(
            server.url,
            '{ alertSilences { id state matchers { assets } } }',
          )
        ).data?.alertSilences ?? [];
      expect(stored).toMatchObject({ state: 'ACTIVE', matchers: { assets: ['AAPL'] } });
      await loaded(page);
      await shots.take(page, 'alerts-silences');
      await expectAccessible(page, 'Alerts with a silence listed (light)');

      await row.getByRole('button', { name: 'Expire' }).click();
      await expect.poll(async () => (await row.textContent()) ?? '', WAIT).toMatch(/^expired/);
      expect(await row.getByRole('button', { name: 'Expire' }).count()).toBe(0);
      const after = await graphql<{ alertSilences: { id: string; state: string }[] }>(
        server.url,
        '{ alertSilences(includeExpired: true) { id state } }',
      );
      expect(after.data?.alertSilences.find((s) => s.id === stored?.id)?.state).toBe('EXPIRED');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'Alerts: an alert with a mute window (its zone refused by Vigil, then fixed), a Slack channel, resolutions sent and grouping by asset',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/alerts`);
      await page.getByRole('heading', { level: 1, name: 'Alerts', exact: true }).waitFor(WAIT);
      await page.getByRole('button', { name: 'New alert' }).click();
      await page.getByLabel('Alert id').fill('desk-slack');
      await page.getByLabel('Name', { exact: true }).fill('Flash crashes to the desk on Slack');
      await page.getByRole('checkbox', { name: 'flash crash' }).check();
      await page.getByRole('checkbox', { name: 'Slack', exact: true }).check();
      // Loopback is allowed on this server (ALERT_DELIVERY_ALLOWED_HOSTS), as hooks.slack.com is anywhere.
      await page.getByLabel('Slack webhook URL').fill(`${receiver.url}/slack`);
      await page.getByRole('checkbox', { name: 'Send resolved' }).check();
      await page.getByRole('checkbox', { name: 'Group notifications' }).check();
      await page.getByRole('group', { name: 'Group by' }).getByRole('checkbox', { name: 'asset' }).check();
      await page.getByRole('button', { name: 'Add mute window' }).click();
      const window = page.getByRole('group', { name: 'Mute window 1' });
      for (const day of ['Sat', 'Sun']) await window.getByRole('checkbox', { name: day }).check();
      await window.getByLabel('Start').fill('18:00');
      await window.getByLabel('End').fill('08:00');
      const zone = window.getByLabel('Time zone');
      await zone.fill('Mars/Olympus_Mons');
      await page.getByRole('button', { name: 'Create alert' }).click();
      await expect.poll(() => zone.getAttribute('aria-invalid'), WAIT).toBe('true');
      await page.getByRole('button', { name: 'Mute window 1 time zone' }).waitFor(WAIT);
      await shots.take(page, 'alerts-form-mute-window-slack');
      await expectAccessible(page, 'Alerts, form with a mute window and Slack (light)');

      await zone.fill('America/New_York');
      await page.getByRole('button', { name: 'Create alert' }).click();
      const row = page.getByRole('row').filter({ hasText: 'desk-slack' });
      await row.waitFor(WAIT);
      expect(await row.textContent()).toContain('Slack');
      const stored = await graphql<{ alerts: { alertId: string }[] }>(
        server.url,
        `{ alerts { alertId deliveryMethods slackConfig { hasWebhookUrl } muteWindows { days start end timeZone }
          sendResolved grouping { groupBy groupWaitSeconds groupIntervalSeconds repeatIntervalSeconds } } }`,
      );
      expect(stored.data?.alerts.find((a) => a.alertId === 'desk-slack')).toEqual({
        alertId: 'desk-slack',
        deliveryMethods: ['SLACK'],
        slackConfig: { hasWebhookUrl: true },
        muteWindows: [{ days: ['SAT', 'SUN'], start: '18:00', end: '08:00', timeZone: 'America/New_York' }],
        sendResolved: true,
        grouping: {
          groupBy: ['ASSET'],
          groupWaitSeconds: 30,
          groupIntervalSeconds: 300,
          repeatIntervalSeconds: 14400,
        },
      });

      // Editing it shows the window and that a Slack URL is stored, never the URL itself.
      await row.getByRole('button', { name: 'Edit' }).click();
      await expect
        .poll(
          () => page.getByRole('group', { name: 'Mute window 1' }).getByLabel('Time zone').inputValue(),
          WAIT,
        )
        .toBe('America/New_York');
      const slack = page.getByLabel(/^Slack webhook URL/);
      expect(await slack.inputValue()).toBe('');
      await page.getByRole('checkbox', { name: 'Remove stored slack webhook url' }).waitFor(WAIT);
      await page.getByRole('button', { name: 'Cancel' }).click();
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'FK-DSL: an example runs, at once and as a task, and shows results; EXPLAIN shows the plan',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/fk-dsl`);
      await page.getByRole('heading', { level: 1, name: 'FK-DSL', exact: true }).waitFor(WAIT);
      const query = page.getByRole('textbox', { name: 'Query' });
      await page.getByRole('combobox', { name: 'Example' }).waitFor(WAIT);
      await expect.poll(async () => (await query.inputValue()).trim().length, WAIT).toBeGreaterThan(0);
      await page.getByRole('button', { name: 'Run', exact: true }).click();
      const results = page.getByRole('region', { name: 'Results' });
      await results.getByRole('table').first().waitFor(WAIT);
      await expect.poll(() => results.getByRole('row').count(), WAIT).toBeGreaterThan(1);
      await page.getByRole('button', { name: 'Explain' }).click();
      await page.getByRole('region', { name: 'Plan' }).waitFor(WAIT);
      await page.getByRole('button', { name: 'Run as task' }).click();
      const task = page.getByRole('region', { name: 'Task' });
      await expect
        .poll(async () => (await task.textContent().catch(() => '')) ?? '', WAIT)
        .toMatch(/completed/i);
      await loaded(page);
      await shots.take(page, 'fk-dsl-results');
      await expectAccessible(page, 'FK-DSL with results and plan (light)');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'Sessions: the list and the analytics',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/sessions`);
      await page.getByRole('heading', { level: 1, name: 'Sessions', exact: true }).waitFor(WAIT);
      await page.getByRole('region', { name: 'Analytics' }).waitFor(WAIT);
      await loaded(page);
      await shots.take(page, 'sessions');
      await expectAccessible(page, 'Sessions (light)');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'Access: who is calling (anonymous on an open server)',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/access`);
      await page.getByRole('heading', { level: 1, name: 'Access', exact: true }).waitFor(WAIT);
      await page.getByRole('region', { name: 'Signed in as' }).waitFor(WAIT);
      await loaded(page);
      await shots.take(page, 'access-open-server');
      await expectAccessible(page, 'Access (light)');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'works 360 px wide: Overview and Markets with no horizontal overflow',
    async () => {
      const page = await guard.context.newPage();
      await page.setViewportSize({ width: 360, height: 740 });
      for (const [hash, title, name] of [
        ['#/overview', 'Overview', 'overview-360px'],
        ['#/markets', 'Markets', 'markets-360px'],
      ] as const) {
        await page.goto(`${server.url}/${hash}`);
        await page.getByRole('heading', { level: 1, name: title, exact: true }).waitFor(WAIT);
        await loaded(page);
        await shots.take(page, name);
        expect(
          await page.evaluate<number>('document.documentElement.scrollWidth'),
          `${title} at 360 px`,
        ).toBeLessThanOrEqual(360);
      }
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'the dark theme passes axe on every view',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/overview`);
      await setTheme(page, 'dark');
      const problems: string[] = [];
      for (const [hash, title] of [
        ['#/overview', 'Overview'],
        ['#/markets', 'Markets'],
        ['#/markets/ETH%2FUSDT', 'ETH/USDT'],
        ['#/alerts', 'Alerts'],
        ['#/fk-dsl', 'FK-DSL'],
        ['#/sessions', 'Sessions'],
        ['#/access', 'Access'],
      ] as const) {
        await open(page, hash, title);
        if (hash === '#/alerts') {
          await page.getByRole('button', { name: 'New alert' }).click();
          await page.getByRole('button', { name: 'Add mute window' }).click();
          await page.getByRole('button', { name: 'New silence' }).click();
          await page.getByRole('region', { name: 'New silence' }).waitFor(WAIT);
          await shots.take(page, 'alerts-forms-dark');
        }
        problems.push(describeAxe(`${title} (dark)`, await axeProblems(page)));
      }
      await shots.take(page, 'access-dark');
      expect(problems.filter(Boolean).join('\n')).toBe('');
      await page.close();
    },
    JOURNEY_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// With AUTH_REQUIRED: sign-in, scopes, keys

describe.skipIf(!CHROMIUM)('the console with AUTH_REQUIRED', () => {
  let authServer: VigilServer;
  let authGuard: GuardedContext;
  let adminKey = '';

  beforeAll(async () => {
    [authServer] = await Promise.all([
      startVigil({ AUTH_REQUIRED: 'true', LOG_LEVEL: 'info' }, async (dataDir) => {
        adminKey = await createKeyWithCli(dataDir, 'console-admin', ['admin']);
      }),
      theBrowser(),
    ]);
    authGuard = await guardedContext(await theBrowser());
  }, 120_000);

  afterAll(async () => {
    await authGuard?.context.close();
    await authServer?.stop();
  });

  afterEach((ctx) =>
    expectCleanRun(authGuard, ctx, [
      // Chromium's own line for each HTTP error answer: the API's 401 to a caller with no key yet.
      /: Failed to load resource: the server responded with a status of 401 /,
    ]),
  );

  async function signIn(page: Page, key: string): Promise<void> {
    await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor(WAIT);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('button', { name: 'Sign out' }).waitFor(WAIT);
  }

  it(
    'signs in with an admin key, creates a read key, which cannot create alerts; the admin revokes it',
    async () => {
      const page = await authGuard.context.newPage();
      await page.goto(`${authServer.url}/#/access`);
      await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor(WAIT);
      await shots.take(page, 'sign-in');
      await expectAccessible(page, 'Sign in (light)');
      await setTheme(page, 'dark');
      await page.getByRole('heading', { level: 1, name: 'Sign in', exact: true }).waitFor(WAIT);
      await expectAccessible(page, 'Sign in (dark)');
      await setTheme(page, 'light');

      await signIn(page, adminKey);
      await page.getByRole('heading', { level: 1, name: 'Access', exact: true }).waitFor(WAIT);
      const who = page.getByRole('region', { name: 'Signed in as' });
      await expect.poll(async () => (await who.textContent()) ?? '', WAIT).toContain('console-admin');
      const create = page.getByRole('region', { name: 'Create key' });
      await create.getByLabel('Key name').fill('console-reader');
      await create.getByRole('checkbox', { name: 'read', exact: true }).check();
      await create.getByRole('button', { name: 'Create key' }).click();
      const secret = page.getByRole('region', { name: 'New key' }).locator('code').first();
      await secret.waitFor(WAIT);
      const readKey = ((await secret.textContent()) ?? '').trim();
      expect(readKey).toMatch(/^vgl_/);
      await page.getByRole('button', { name: 'Revoke console-reader' }).waitFor(WAIT);
      await loaded(page);
      await shots.take(page, 'access-new-key');
      await expectAccessible(page, 'Access as admin with a new key (light)');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, readKey);
      await open(page, '#/alerts', 'Alerts');
      // The view has drawn its list (or its empty state): with READ only, no way to create.
      expect(await page.getByRole('button', { name: 'New alert' }).count()).toBe(0);
      await page.getByRole('region', { name: 'Silences', exact: true }).waitFor(WAIT);
      expect(await page.getByRole('button', { name: 'New silence' }).count()).toBe(0);
      await shots.take(page, 'alerts-read-key');

      await page.getByRole('button', { name: 'Sign out' }).click();
      await signIn(page, adminKey);
      await open(page, '#/alerts', 'Alerts');
      await page.getByRole('button', { name: 'New alert' }).waitFor(WAIT);
      await open(page, '#/access', 'Access');
      await page.getByRole('button', { name: 'Revoke console-reader' }).click();
      // The view may ask to confirm (its own wording): the key is revoked once Vigil refuses it.
      const yes = page.getByRole('button', { name: /^(yes|confirm)\b/i });
      await expect
        .poll(async () => {
          if ((await graphql(authServer.url, '{ viewer { id } }', {}, readKey)).status === 401)
            return 'revoked';
          if (await yes.count())
            await yes
              .first()
              .click({ timeout: 1_000 })
              .catch(() => {});
          return 'live';
        }, WAIT)
        .toBe('revoked');
      await expect
        .poll(() => page.getByRole('button', { name: 'Revoke console-reader' }).count(), WAIT)
        .toBe(0);
      await shots.take(page, 'access-revoked');
      await page.close();
    },
    JOURNEY_MS,
  );
});

// ---------------------------------------------------------------------------------------------
// Back on the open server: the Overview opened first has been live all along

describe.skipIf(!CHROMIUM)('the Overview opened first on the open server', () => {
  afterAll(async () => {
    await guard?.context.close();
    await server?.stop();
    await receiver?.close();
  });

  afterEach((ctx) => expectCleanRun(guard, ctx));

  // Last, so that the journeys above gave the minute-by-minute demo time to report new events.
  it(
    'Overview: watchdog events arrive live, without a reload, and open in the details drawer',
    async () => {
      const page = overview;
      await page.bringToFront();
      // A new event stored after the Overview drew its list (demo activity reports every minute).
      let fresh: { id: string; description: string; data: unknown } | undefined;
      await expect
        .poll(
          async () => {
            const answer = await graphql<{
              watchdogEvents: { events: { id: string; description: string; data: unknown }[] };
            }>(server.url, '{ watchdogEvents(limit: 1) { events { id description data } } }');
            const newest = answer.data?.watchdogEvents.events[0];
            if (newest && newest.id !== lastEventAtStart) fresh = newest;
            return fresh !== undefined;
          },
          { timeout: 100_000, interval: 500 },
        )
        .toBe(true);
      const feed = page.getByRole('region', { name: 'Live events' });
      const button = feed.getByRole('listitem').getByRole('button', { name: fresh!.description });
      await button.first().waitFor(WAIT);
      expect(await page.evaluate('window.__notReloaded')).toBe(true);

      await button.first().click();
      const drawer = page.getByRole('dialog', { name: 'Event details' });
      await drawer.waitFor(WAIT);
      expect(await drawer.textContent()).toContain(fresh!.description);
      // The event's data, as Vigil stored it.
      const shown = await drawer.locator('pre').first().textContent();
      expect(JSON.parse(shown ?? 'null')).toEqual(fresh!.data);
      await shots.take(page, 'overview-event-details');
      await expectAccessible(page, 'Overview with the event drawer (light)');
      await page.keyboard.press('Escape');
      await drawer.waitFor({ state: 'detached', timeout: WAIT.timeout });
    },
    JOURNEY_MS,
  );

  // After the live-events journey: by now the demo's events have fired btc-webhook (every watchdog event).
  it(
    "Alerts: an episode acknowledged with a note from the alert's firings, then resolved",
    async () => {
      type Firings = { alertFirings: { episode: { state: string } | null }[] };
      await expect
        .poll(
          async () =>
            (
              await graphql<Firings>(
                server.url,
                '{ alertFirings(alertId: "btc-webhook") { episode { state } } }',
              )
            ).data?.alertFirings.some((f) => f.episode?.state === 'FIRING'),
          { timeout: 100_000, interval: 500 },
        )
        .toBe(true);
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/alerts/btc-webhook`);
      const firings = page.getByRole('region', { name: 'Firings', exact: true });
      await firings.getByRole('button', { name: 'Acknowledge', exact: true }).first().click();
      const acknowledge = page.getByRole('region', { name: 'Acknowledge episode' });
      await acknowledge.getByLabel('Note (optional)').fill('Looking into it');
      await loaded(page);
      await shots.take(page, 'alerts-firings-acknowledge');
      await expectAccessible(page, "Alerts, an alert's firings with the acknowledge form (light)");
      await acknowledge.getByRole('button', { name: 'Acknowledge episode' }).click();
      const notice = firings.getByRole('status').filter({ hasText: /^Episode / });
      await expect
        .poll(async () => (await notice.textContent().catch(() => '')) ?? '', WAIT)
        .toMatch(/ is acknowledged\.$/);
      const key = /^Episode (\S+) is acknowledged\.$/.exec((await notice.textContent()) ?? '')?.[1] ?? '';
      const row = firings.getByRole('row').filter({ hasText: key }).filter({ hasText: 'Looking into it' });
      await row.first().waitFor(WAIT);
      type Episodes = {
        alertEpisodes: {
          incidentKey: string;
          state: string;
          acknowledgementNote: string | null;
          resolvedReason: string | null;
        }[];
      };
      const episodes = () =>
        graphql<Episodes>(
          server.url,
          '{ alertEpisodes(alertId: "btc-webhook") { incidentKey state acknowledgementNote resolvedReason } }',
        );
      const open = (await episodes()).data?.alertEpisodes.find(
        (e) => e.incidentKey === key && e.state !== 'RESOLVED',
      );
      expect(open).toMatchObject({ state: 'ACKNOWLEDGED', acknowledgementNote: 'Looking into it' });

      await row.getByRole('button', { name: 'Resolve', exact: true }).first().click();
      const resolve = page.getByRole('region', { name: 'Resolve episode' });
      await resolve.getByLabel('Note (optional)').fill('Feed fixed');
      await resolve.getByRole('button', { name: 'Resolve episode' }).click();
      await expect
        .poll(async () => (await notice.textContent().catch(() => '')) ?? '', WAIT)
        .toBe(`Episode ${key} is resolved.`);
      const after = (await episodes()).data?.alertEpisodes.filter((e) => e.incidentKey === key);
      expect(after).toContainEqual({
        incidentKey: key,
        state: 'RESOLVED',
        acknowledgementNote: 'Looking into it',
        resolvedReason: 'MANUAL',
      });
      await loaded(page);
      await shots.take(page, 'alerts-firings-resolved');
      await page.close();
    },
    JOURNEY_MS,
  );

  it(
    'says when the server goes away and when it is back, and the live views resume by themselves',
    async () => {
      const page = await guard.context.newPage();
      await page.goto(`${server.url}/#/markets/BTC%2FUSDT`);
      const chart = page.getByTestId('price-chart');
      const ticks = async () => Number(await chart.getAttribute('data-ticks'));
      await expect.poll(ticks, WAIT).toBeGreaterThan(0);
      await page.getByRole('status', { name: 'Connection: Live' }).waitFor(WAIT);

      // Every notice the page shows is recorded as it appears: on a quick restart the "lost" notice
      // may already have given way to "reconnected" when the test looks.
      await page.evaluate(`(() => {
        window.__notices = [];
        new MutationObserver(() => {
          for (const el of document.querySelectorAll('.notice')) {
            const text = el.textContent ?? '';
            if (window.__notices.at(-1) !== text) window.__notices.push(text);
          }
        }).observe(document.body, { subtree: true, childList: true, characterData: true });
      })()`);
      const notices = () => page.evaluate('window.__notices') as Promise<string[]>;
      await server.restart();
      await expect
        .poll(async () => (await notices()).join(' | '), WAIT)
        .toMatch(/Connection to Vigil lost: reconnecting.*\| Reconnected: live data is flowing again\./);
      await page.getByRole('status', { name: 'Connection: Live' }).waitFor(WAIT);
      // The chart streams again without a reload.
      const after = await ticks();
      await expect.poll(ticks, WAIT).toBeGreaterThan(after);
      await shots.take(page, 'connection-back');
      await page.close();
    },
    JOURNEY_MS,
  );
});
