/**
 * Custom alert conditions on the FK-DSL (the ConditionPort of conditions.ts): one SCAN statement,
 * within the cost and deadline limits of any query, run with the alerts' upstream share; the
 * condition holds when the scan matches.
 */
import type { FkDslService } from '../fk-dsl/fk-dsl.service.ts';
import { parseInstrument } from '../market-data/instruments.ts';
import type { MarketDataService } from '../market-data/market-data.service.ts';
import type { ConditionPort } from './conditions.ts';
import { ALERTS_CLIENT_ID } from './thresholds.ts';

export function fkDslConditions(
  fkDsl: Pick<FkDslService, 'compile' | 'execute'>,
  marketData: Pick<MarketDataService, 'withinOperation'>,
): ConditionPort {
  const scanOnly = (query: string) => {
    const program = fkDsl.compile(query);
    if (program.statements.length !== 1 || program.statements[0]!.kind !== 'scan') {
      throw new Error('must be one FK-DSL SCAN statement (SCAN <universe> WHERE ...)');
    }
  };
  return {
    check: scanOnly,
    async matches(condition) {
      scanOnly(condition);
      const result = await marketData.withinOperation(ALERTS_CLIENT_ID, () => fkDsl.execute(condition));
      const [outcome] = result.statements;
      if (!outcome || 'error' in outcome)
        throw new Error(outcome && 'error' in outcome ? outcome.error.message : 'no result');
      if (outcome.kind !== 'scan') throw new Error('the condition is not a SCAN');
      return outcome.matches.map((m) => ({
        symbol: m.symbol,
        assetType: assetClassOf(m.symbol),
        values: m.values,
      }));
    },
  };
}

function assetClassOf(symbol: string): string {
  try {
    return parseInstrument(symbol).assetClass;
  } catch {
    return 'unknown';
  }
}
