import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestApp, type TestApp } from './support/app.ts';
import {
  dashboardExpressions,
  exposedSeriesNames,
  promqlMetricNames,
  ruleExpressions,
} from './support/promql-names.ts';

const repo = (path: string) => fileURLToPath(new URL(`../${path}`, import.meta.url));
const RULES = repo('docs/ops/prometheus/vigil-rules.yml');
const RULE_TESTS = repo('docs/ops/prometheus/vigil-rules.test.yml');
const DASHBOARD = repo('docs/ops/grafana/vigil-dashboard.json');

const hasPromtool = spawnSync('promtool', ['--version'], { stdio: 'ignore' }).status === 0;
/** CI installs promtool and sets this, so the rules' own unit tests run there. */
const requirePromtool = process.env.VIGIL_REQUIRE_PROMTOOL === '1';

const rulesText = () => readFileSync(RULES, 'utf8');
const dashboard = () => JSON.parse(readFileSync(DASHBOARD, 'utf8')) as unknown;

/** Names the expressions select that the exposition does not declare, with the expression. */
function unknownNames(exprs: string[], exposed: Set<string>): string[] {
  return exprs.flatMap((expr) =>
    promqlMetricNames(expr)
      .filter((name) => !exposed.has(name))
      .map((name) => `${name} in: ${expr.trim()}`),
  );
}

describe('the Prometheus rules for Vigil', () => {
  const promtool = (...args: string[]) => {
    const run = spawnSync('promtool', args, { encoding: 'utf8' });
    return { status: run.status, output: `${run.stdout}${run.stderr}` };
  };

  it('pass promtool check rules and their unit tests (promtool test rules)', () => {
    if (requirePromtool) expect(hasPromtool, 'promtool is not installed (VIGIL_REQUIRE_PROMTOOL)').toBe(true);
    if (!hasPromtool) return;
    const checked = promtool('check', 'rules', RULES);
    expect(checked.output).toContain('SUCCESS: 10 rules found');
    expect(checked.status).toBe(0);
    const tested = promtool('test', 'rules', RULE_TESTS);
    expect(tested.output).toContain('SUCCESS');
    expect(tested.status, tested.output).toBe(0);
  });

  it('cover what the operations page promises', () => {
    const alerts = [...rulesText().matchAll(/^\s*- alert: (\w+)$/gm)].map((m) => m[1]);
    expect(alerts).toEqual([
      'VigilWatchdogFailing',
      'VigilWatchdogStopped',
      'VigilDeliveryBacklog',
      'VigilDeliveryOldestPending',
      'VigilDestinationsPaused',
      'VigilProviderCircuitOpen',
      'VigilDatabaseUnavailable',
      'VigilDatabaseUnavailableErrors',
      'VigilHttpErrors',
      'VigilGraphqlErrors',
    ]);
    const docs = readFileSync(repo('docs/operations.md'), 'utf8');
    for (const alert of alerts)
      expect(docs, `docs/operations.md describes ${alert}`).toContain(`\`${alert}\``);
  });
});

describe('the rules and the Grafana dashboard name only metrics /metrics exposes', () => {
  let t: TestApp;
  let exposed: Set<string>;

  beforeAll(async () => {
    t = await createTestApp();
    // Metrics are declared at start (prom-client writes `# TYPE` before the first sample); one
    // request makes sure the HTTP ones are in use as well.
    await t.app.fetch('/healthz');
    exposed = exposedSeriesNames(await (await t.app.fetch('/metrics')).text());
  });
  afterAll(async () => t?.close());

  it('reads the expressions and the names in them', () => {
    expect(ruleExpressions(rulesText())).toHaveLength(10);
    const fromDashboard = dashboardExpressions(dashboard());
    expect(fromDashboard.length).toBeGreaterThan(30);
    expect(promqlMetricNames(fromDashboard.join('\n'))).toEqual(
      expect.arrayContaining(['vigil_http_requests_total', 'vigil_process_start_time_seconds']),
    );
    expect(exposed).toContain('vigil_http_request_duration_seconds_bucket');
  });

  it('the rules', () => {
    expect(unknownNames(ruleExpressions(rulesText()), exposed)).toEqual([]);
  });

  it('the dashboard', () => {
    expect(unknownNames(dashboardExpressions(dashboard()), exposed)).toEqual([]);
  });

  it('a name /metrics does not expose is reported, in a rule and in a panel', () => {
    const wrongRules = rulesText().replace(
      'vigil_alert_delivery_paused_destinations',
      'vigil_alert_paused_destinations',
    );
    expect(unknownNames(ruleExpressions(wrongRules), exposed)).toEqual([
      expect.stringMatching(/^vigil_alert_paused_destinations in: sum by \(job, instance\)/),
    ]);
    const wrongPanel = JSON.parse(
      readFileSync(DASHBOARD, 'utf8').replace('vigil_watchdog_checks_total', 'vigil_watchdog_check_total'),
    );
    expect(unknownNames(dashboardExpressions(wrongPanel), exposed)).toEqual([
      expect.stringMatching(/^vigil_watchdog_check_total in: /),
    ]);
  });
});

/** What VigilDatabaseUnavailable and VigilDatabaseUnavailableErrors read, from a real outage. */
describe('an instance whose database is gone', () => {
  let t: TestApp | undefined;
  afterAll(async () => t?.close());

  it('is still scraped, without the queue depth, and counts DATABASE_UNAVAILABLE', async () => {
    t = await createTestApp({ driver: 'pglite' });
    const scrape = async () => (await t!.app.fetch('/metrics')).text();
    const samples = (text: string, name: string) =>
      text.split('\n').filter((l) => l.startsWith(`${name}{`) || l.startsWith(`${name} `));
    expect(samples(await scrape(), 'vigil_alert_delivery_queue_depth')).toHaveLength(4);

    const handle = t.app.deps.database;
    if (handle.mode !== 'pglite') throw new Error('expected the embedded database');
    await handle.pglite.close();
    const answer = await t.app.fetch('/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: '{ fkDslTask(taskId: "00000000-0000-4000-8000-000000000000") { status } }',
      }),
    });
    expect(answer.status).toBe(503);
    // The scrape reads the queue at most once a second.
    await new Promise((resolve) => setTimeout(resolve, 1_100));

    const text = await scrape();
    expect(samples(text, 'vigil_process_start_time_seconds')).toHaveLength(1);
    expect(samples(text, 'vigil_alert_delivery_queue_depth')).toEqual([]);
    expect(samples(text, 'vigil_graphql_errors_total')).toContain(
      'vigil_graphql_errors_total{code="DATABASE_UNAVAILABLE"} 1',
    );
  });
});

describe('the PromQL metric names', () => {
  it('are the selectors, not functions, keywords, label names, values or durations', () => {
    const expr = `histogram_quantile(0.95, sum by (le, route) (rate(vigil_a_bucket{job=~"$job", route!="x_y"}[5m] offset 1h)))
      / on (job) group_left (le) max without (instance) (vigil_b) unless vigil_c > bool 0 and time() - vigil_d`;
    expect(promqlMetricNames(expr).sort()).toEqual(['vigil_a_bucket', 'vigil_b', 'vigil_c', 'vigil_d']);
  });

  it("count a histogram's series only for histograms", () => {
    const names = exposedSeriesNames('# TYPE a histogram\n# TYPE b_total counter\n# TYPE c gauge\n');
    expect([...names].sort()).toEqual(['a', 'a_bucket', 'a_count', 'a_sum', 'b_total', 'c']);
  });
});
