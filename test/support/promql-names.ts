/**
 * The metric names a PromQL expression selects, so the operators' kit (docs/ops) can be checked
 * against what /metrics exposes. Enough PromQL for selectors, aggregations, functions and binary
 * operators: a name is an identifier that is not a function call, a keyword, a label list
 * (`by (...)`, `on (...)`) or inside `{...}`, `[...]` or a string.
 */
const KEYWORDS = new Set([
  'by',
  'without',
  'on',
  'ignoring',
  'group_left',
  'group_right',
  'and',
  'or',
  'unless',
  'bool',
  'offset',
  'inf',
  'nan',
]);

export function promqlMetricNames(expr: string): string[] {
  const stripped = expr
    .replace(/"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`[^`]*`/g, ' ')
    .replace(/\{[^}]*\}/g, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\b(by|without|on|ignoring|group_left|group_right)\s*\([^)]*\)/g, ' ');
  const names = new Set<string>();
  for (const match of stripped.matchAll(/(?<![\w:.])[A-Za-z_:][\w:]*/g)) {
    const name = match[0];
    const after = stripped.slice((match.index ?? 0) + name.length);
    if (/^\s*\(/.test(after) || KEYWORDS.has(name.toLowerCase())) continue;
    names.add(name);
  }
  return [...names];
}

/** The `expr:` of every rule in a Prometheus rules file (inline, or a `|` block below it). */
export function ruleExpressions(yaml: string): string[] {
  const lines = yaml.split('\n');
  const exprs: string[] = [];
  for (const [i, line] of lines.entries()) {
    const m = /^(\s*)expr:\s*(.*)$/.exec(line);
    if (!m) continue;
    const [, indent = '', inline = ''] = m;
    if (!/^[|>]/.test(inline)) {
      exprs.push(inline);
      continue;
    }
    const block: string[] = [];
    for (const next of lines.slice(i + 1)) {
      if (next.trim() !== '' && next.search(/\S/) <= indent.length) break;
      block.push(next);
    }
    exprs.push(block.join('\n'));
  }
  return exprs;
}

/** Every PromQL expression of a Grafana dashboard: panel targets (rows' panels too) and query variables. */
export function dashboardExpressions(dashboard: unknown): string[] {
  const exprs: string[] = [];
  const walk = (node: unknown): void => {
    if (Array.isArray(node)) {
      for (const item of node) walk(item);
      return;
    }
    if (!node || typeof node !== 'object') return;
    for (const [key, value] of Object.entries(node)) {
      if (key === 'expr' && typeof value === 'string') exprs.push(value);
      else if (key === 'definition' && typeof value === 'string') exprs.push(variableQuery(value));
      else walk(value);
    }
  };
  walk(dashboard);
  return exprs;
}

/** `label_values(metric, label)` selects `metric`; other variable queries are PromQL themselves. */
function variableQuery(query: string): string {
  const labelValues = /^\s*label_values\(\s*(.*?)\s*,\s*\w+\s*\)\s*$/.exec(query);
  return labelValues ? (labelValues[1] ?? '') : query;
}

/**
 * The series names an exposition's `# TYPE` lines declare, with the `_bucket`, `_sum` and `_count`
 * series of histograms and summaries. prom-client writes `# TYPE` for a metric with no samples yet.
 */
export function exposedSeriesNames(exposition: string): Set<string> {
  const names = new Set<string>();
  for (const [, name = '', type = ''] of exposition.matchAll(/^# TYPE (\S+) (\S+)$/gm)) {
    names.add(name);
    if (type === 'histogram') for (const s of ['_bucket', '_sum', '_count']) names.add(`${name}${s}`);
    if (type === 'summary') for (const s of ['_sum', '_count']) names.add(`${name}${s}`);
  }
  return names;
}
