/** The FK-DSL view's GraphQL documents and the shapes they answer (see schema.graphql). */

const COMPONENT = 'name unit value components { name unit value }';
const METRIC = `metric unit value error barsUsed asOf window { text bars interval } components { ${COMPONENT} }`;
const ASSET = `symbol written assetClass asOf metrics { ${METRIC} } lineage { kind simulated used }`;

const RESULT = `
  __typename
  ... on FkDslEvaluateResult { asset { ${ASSET} } }
  ... on FkDslCompareResult { table { symbols rows { metric unit cells { symbol value components { ${COMPONENT} } } } } }
  ... on FkDslCorrelateResult { window pairs { a b correlation observations from to } }
  ... on FkDslScanResult { universe scanned matches { symbol values { metric unit value } } skipped { symbol reason } }
  ... on FkDslMacroResult {
    analysis target indicators window frequency observations from to conventions
    regression { n k rSquared adjustedRSquared fStatistic fPValue
      coefficients { name estimate standardError tStatistic pValue } }
    correlations { indicator correlation pValue }
    impacts { indicator impactPercent impactStandardErrorPercent pValue }
    causality { indicator forward { cause effect lags fStatistic pValue conclusion }
      reverse { cause effect lags fStatistic pValue conclusion } }
  }
  ... on FkDslExplainResult { plan { ${PLAN_FIELDS()} } }
`;

function PLAN_FIELDS(): string {
  return 'kind statement computations fetches { symbol assetClass quote profile dailyBars hourlyBars }';
}

const EXECUTION = `elapsedMs errors status query statements { index kind statement error { code message } result { ${RESULT} } }`;

export const EXECUTE = `query Execute($query: String!, $sessionId: String) {
  executeFkDsl(query: $query, sessionId: $sessionId) { ${EXECUTION} }
}`;

export const SUBMIT = `mutation Submit($query: String!, $sessionId: String) {
  submitFkDsl(query: $query, sessionId: $sessionId) { taskId status createdAt }
}`;

export const TASK = `query Task($taskId: ID!) {
  fkDslTask(taskId: $taskId) { taskId status createdAt startedAt finishedAt error { code message } result { ${EXECUTION} } }
}`;

export const EXPLAIN = `query Explain($query: String!) { explainFkDsl(query: $query) { ${PLAN_FIELDS()} } }`;

export const METRICS = '{ fkDslMetrics { id name signature unit technical description } }';

export type Unit = 'CURRENCY' | 'NUMBER' | 'OBJECT' | 'PERCENT' | 'PRICE' | 'RATIO' | 'VOLUME';

export interface Component {
  readonly name: string;
  readonly unit: Unit;
  readonly value: number | null;
  readonly components?: readonly Component[] | null;
}

export interface MetricValue {
  readonly metric: string;
  readonly unit: Unit;
  readonly value: number | null;
  readonly error: string | null;
  readonly barsUsed: number | null;
  readonly asOf: string | null;
  readonly window: { text: string; bars: number; interval: 'DAY' | 'HOUR' } | null;
  readonly components: readonly Component[] | null;
}

export interface Asset {
  readonly symbol: string;
  readonly written: string;
  readonly assetClass: string;
  readonly asOf: string | null;
  readonly metrics: readonly MetricValue[];
  readonly lineage: readonly { kind: string; simulated: boolean; used: string[] }[];
}

export interface Fetch {
  readonly symbol: string;
  readonly assetClass: string;
  readonly quote: boolean;
  readonly profile: boolean;
  readonly dailyBars: number;
  readonly hourlyBars: number;
}

export interface Plan {
  readonly kind: string;
  readonly statement: string;
  readonly computations: readonly string[];
  readonly fetches: readonly Fetch[];
}

interface Test {
  readonly cause: string;
  readonly effect: string;
  readonly lags: number;
  readonly fStatistic: number | null;
  readonly pValue: number | null;
  readonly conclusion: string;
}

export type Result =
  | { __typename: 'FkDslEvaluateResult'; asset: Asset }
  | {
      __typename: 'FkDslCompareResult';
      table: {
        symbols: string[];
        rows: {
          metric: string;
          unit: Unit | null;
          cells: { symbol: string; value: number | null; components: Component[] | null }[];
        }[];
      };
    }
  | {
      __typename: 'FkDslCorrelateResult';
      window: string;
      pairs: {
        a: string;
        b: string;
        correlation: number | null;
        observations: number;
        from: string | null;
        to: string | null;
      }[];
    }
  | {
      __typename: 'FkDslScanResult';
      universe: string;
      scanned: number;
      matches: { symbol: string; values: { metric: string; unit: Unit | null; value: number | null }[] }[];
      skipped: { symbol: string; reason: string }[];
    }
  | {
      __typename: 'FkDslMacroResult';
      analysis: string;
      target: string;
      indicators: string[];
      window: string;
      frequency: string;
      observations: number;
      from: string | null;
      to: string | null;
      conventions: string;
      regression: {
        n: number;
        k: number;
        rSquared: number | null;
        adjustedRSquared: number | null;
        fStatistic: number | null;
        fPValue: number | null;
        coefficients: {
          name: string;
          estimate: number | null;
          standardError: number | null;
          tStatistic: number | null;
          pValue: number | null;
        }[];
      } | null;
      correlations: { indicator: string; correlation: number | null; pValue: number | null }[] | null;
      impacts:
        | {
            indicator: string;
            impactPercent: number | null;
            impactStandardErrorPercent: number | null;
            pValue: number | null;
          }[]
        | null;
      causality: { indicator: string; forward: Test; reverse: Test }[] | null;
    }
  | { __typename: 'FkDslExplainResult'; plan: Plan };

export interface Statement {
  readonly index: number;
  readonly kind: string;
  readonly statement: string;
  readonly error: { code: string; message: string } | null;
  readonly result: Result | null;
}

export interface Execution {
  readonly elapsedMs: number;
  readonly errors: number;
  readonly status: string;
  readonly query: string;
  readonly statements: readonly Statement[];
}

export type TaskStatus = 'QUEUED' | 'RUNNING' | 'COMPLETED' | 'FAILED';

export interface Task {
  readonly taskId: string;
  readonly status: TaskStatus;
  readonly createdAt: string;
  readonly startedAt: string | null;
  readonly finishedAt: string | null;
  readonly error: { code: string; message: string } | null;
  readonly result: Execution | null;
}

export interface MetricInfo {
  readonly id: string;
  readonly name: string;
  readonly signature: string;
  readonly unit: Unit;
  readonly technical: boolean;
  readonly description: string;
}
