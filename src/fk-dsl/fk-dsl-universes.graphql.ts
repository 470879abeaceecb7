import { builder } from '../builder.ts';
import { enumValues } from '../platform/graphql/enum-values.ts';
import { fkDslDeps } from './fk-dsl.deps.ts';
import { LIMITS } from './fk-dsl.service.ts';
import type { ScanUniverse } from './universes.ts';

/** The named SCAN universes (`list-universes`): what `SCAN US WHERE ...` and the others read. */

const UniverseSourceEnum = builder.enumType('FkDslUniverseSource', {
  description: 'Where the instruments of a SCAN universe come from.',
  values: enumValues<ScanUniverse['source']>({
    providers: 'A configured provider lists its instruments (the simulated market does).',
    configuration: 'The SCAN_UNIVERSE_US and SCAN_UNIVERSE_CRYPTO settings (no provider lists any).',
  }),
});

const UniverseRef = builder.objectRef<ScanUniverse>('FkDslUniverse').implement({
  description:
    'A named universe of `SCAN <universe> WHERE ...`, with the instruments a scan of it reads now. Value object: ' +
    'not normalised (it changes with the configured providers).',
  fields: (t) => ({
    name: t.exposeString('name', {
      description: 'The name as written in a SCAN statement: US, ETF, CRYPTO or ALL.',
    }),
    description: t.string({
      description: 'What it holds, in words.',
      resolve: (u) => UNIVERSE_DESCRIPTIONS[u.name],
    }),
    source: t.field({
      type: UniverseSourceEnum,
      description: 'Where its list comes from.',
      resolve: (u) => u.source,
    }),
    size: t.int({ description: 'Instruments it holds.', resolve: (u) => u.instruments.length }),
    symbols: t.stringList({
      description: `Canonical symbols of its instruments (AAPL, BTC/USDT), at most ${LIMITS.scanUniverse}.`,
      resolve: (u) => u.instruments.map((i) => i.symbol),
    }),
  }),
});

const UNIVERSE_DESCRIPTIONS: Readonly<Record<ScanUniverse['name'], string>> = {
  US: 'US-listed equities and ETFs.',
  ETF: 'Exchange-traded funds (empty unless a provider lists its instruments).',
  CRYPTO: 'Crypto pairs, one USDT pair per coin.',
  ALL: 'US and CRYPTO together.',
};

builder.queryField('universes', (t) =>
  t.field({
    type: [UniverseRef],
    description:
      'The named universes FK-DSL SCAN statements accept (US, ETF, CRYPTO, ALL), each with its instruments. ' +
      'A SCAN may also name its own list: `SCAN [AAPL, MSFT] WHERE ...`.',
    resolve: (_root, _args, ctx) => fkDslDeps(ctx).fkDsl.universes(),
  }),
);
