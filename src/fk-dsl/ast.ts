/**
 * FK-DSL abstract syntax. Nodes carry an optional source position (`at`) for error messages;
 * positions are not part of a node's meaning (printing and re-parsing gives the same AST apart
 * from positions — see withoutPositions()).
 */
export interface Position {
  readonly line: number;
  readonly column: number;
}

export type DurationUnit = 'h' | 'd' | 'w' | 'm' | 'y';

export interface Duration {
  readonly kind: 'duration';
  readonly value: number;
  readonly unit: DurationUnit;
}

export interface NumberLiteral {
  readonly kind: 'number';
  readonly value: number;
  /** Written with a `%` suffix. */
  readonly percent: boolean;
}

export interface AssetRef {
  readonly kind: 'asset';
  /** As written (quotes removed), e.g. `brk.b`, `BTC/USDT`, `^GSPC`. */
  readonly symbol: string;
  readonly at?: Position;
}

export type Argument = NumberLiteral | Duration | AssetRef | MetricCall;

export interface MetricCall {
  readonly kind: 'metric';
  /** Upper-case catalog name (`VOLATILITY`, `TECHNICAL`). */
  readonly name: string;
  readonly args: readonly Argument[];
  readonly at?: Position;
}

export interface EvaluateStatement {
  readonly kind: 'evaluate';
  readonly asset: AssetRef;
  readonly metrics: readonly MetricCall[];
}

export interface CompareStatement {
  readonly kind: 'compare';
  readonly assets: readonly AssetRef[];
  readonly metrics: readonly MetricCall[];
}

export interface CorrelateStatement {
  readonly kind: 'correlate';
  /** `WITH` form: the first asset against each other one; `PERIOD` form: every pair. */
  readonly form: 'with' | 'period';
  readonly assets: readonly AssetRef[];
  readonly window: Duration | null;
}

export type MacroAnalysis = 'regression' | 'correlation' | 'causality' | 'impact';

export interface MacroStatement {
  readonly kind: 'macro';
  readonly indicators: readonly AssetRef[];
  readonly analysis: MacroAnalysis;
  readonly target: AssetRef;
  readonly window: Duration | null;
  /** Lags for CAUSALITY (Granger); null = chosen by the evaluator. */
  readonly lags: number | null;
}

export type ComparisonOperator = '>' | '<' | '>=' | '<=' | '=' | '!=';

export type Condition =
  | {
      readonly kind: 'compare';
      readonly left: MetricCall;
      readonly op: ComparisonOperator;
      readonly right:
        | NumberLiteral
        | { readonly kind: 'scaled'; readonly metric: MetricCall; readonly factor: number };
    }
  | {
      readonly kind: 'between';
      readonly metric: MetricCall;
      readonly low: NumberLiteral;
      readonly high: NumberLiteral;
    }
  | {
      readonly kind: 'relative';
      readonly direction: 'above' | 'below';
      readonly left: MetricCall;
      readonly right: MetricCall;
    }
  | { readonly kind: 'trend'; readonly direction: 'bullish' | 'bearish' | 'neutral' };

export type Universe =
  | { readonly kind: 'named'; readonly name: string }
  | { readonly kind: 'list'; readonly assets: readonly AssetRef[] };

export interface ScanStatement {
  readonly kind: 'scan';
  readonly universe: Universe;
  readonly conditions: readonly Condition[];
  readonly orderBy: { readonly metric: MetricCall; readonly direction: 'asc' | 'desc' } | null;
  readonly limit: number | null;
}

export interface ExplainStatement {
  readonly kind: 'explain';
  readonly statement: QueryStatement;
}

export type QueryStatement =
  | EvaluateStatement
  | CompareStatement
  | CorrelateStatement
  | MacroStatement
  | ScanStatement;
export type Statement = QueryStatement | ExplainStatement;

export interface Program {
  readonly statements: readonly Statement[];
}

/** A deep copy without source positions, for comparing ASTs by meaning. */
export function withoutPositions<T>(node: T): T {
  return JSON.parse(JSON.stringify(node, (key, value) => (key === 'at' ? undefined : value))) as T;
}
