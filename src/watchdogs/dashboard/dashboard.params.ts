/**
 * The query parameters of GET /dashboard/events and /dashboard/assets/monitor, read into the
 * GraphQL variables the routes run with; errors name the parameter as the client wrote it. Pure.
 */

import { ValidationError } from '../../platform/errors.ts';
import { enumName } from '../../platform/graphql/enum-values.ts';
import { type EventFilter, type EventQuery, parseEventQuery } from '../event-filter.ts';
import { MAX_REPLAY_EVENTS, parseReplay, type ReplayRequest } from '../event-replay.ts';
import { WATCHDOG_NAMES, type WatchdogName } from '../registry.ts';
import { monitorVariables } from './dashboard.wire.ts';

/** A REST parameter for each filter field, so an error names what the client wrote. */
const PARAMETER: Readonly<Record<string, string>> = {
  severities: 'severity',
  eventTypes: 'event_type',
  watchdogs: 'watchdog',
  symbols: 'symbol',
};

/** Every value of a parameter, repeated or comma-separated (`severity=high,critical`). */
export function listParam(params: URLSearchParams, ...names: string[]): string[] | undefined {
  const raw = names.flatMap((n) => params.getAll(n));
  if (raw.length === 0) return undefined;
  return raw
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean);
}

function intParam(params: URLSearchParams, name: string, problem = 'must be an integer'): number | undefined {
  const raw = params.get(name);
  if (raw === null) return undefined;
  if (!/^-?\d{1,7}$/.test(raw.trim())) throw new ValidationError(name, problem);
  return Number(raw);
}

/**
 * The parameters of GET /dashboard/events, checked as every surface checks a filter (errors name
 * the parameter: `severity`, `event_type`, ...), and the GraphQL variables that ask for them.
 */
export function eventParams(params: URLSearchParams): {
  query: EventQuery;
  variables: Record<string, unknown>;
} {
  const input = {
    limit: intParam(params, 'limit'),
    severities: listParam(params, 'severity', 'severities'),
    eventTypes: listParam(params, 'event_type', 'event_types'),
    watchdogs: listParam(params, 'watchdog', 'watchdogs'),
    symbols: listParam(params, 'symbol', 'asset', 'assets', 'symbols'),
    since: params.get('since') ?? undefined,
    until: params.get('until') ?? undefined,
    cursor: params.get('cursor') ?? undefined,
  };
  let query: EventQuery;
  try {
    query = parseEventQuery(input);
  } catch (error) {
    if (error instanceof ValidationError && PARAMETER[error.field]) {
      throw new ValidationError(PARAMETER[error.field]!, error.message.slice(error.field.length + 2));
    }
    throw error;
  }
  const filter = {
    severities: query.severities.map(enumName),
    eventTypes: query.eventTypes.map(enumName),
    watchdogs: query.watchdogs.map(enumName),
    symbols: query.symbols,
    ...(query.since ? { since: query.since.toISOString() } : {}),
    ...(query.until ? { until: query.until.toISOString() } : {}),
  };
  return { query, variables: { filter, limit: query.limit, cursor: input.cursor ?? null } };
}

/** What the upgrade URL of /dashboard/stream asks for. */
export interface StreamParams {
  /** The connection's first filter (a `filter` message replaces it); undefined: every event. */
  readonly filter: EventFilter | undefined;
  /** Stored events to send before the live ones; undefined: none. */
  readonly replay: ReplayRequest | undefined;
}

/**
 * The query parameters of /dashboard/stream: the filter by the names GET /dashboard/events takes
 * (`severity`, `event_type`, `watchdog`, `symbol`, each repeated or comma-separated) and the replay
 * (`last`, `since`; event-replay.ts). Other parameters (`key`) are not the stream's. ValidationError
 * names the parameter as the client wrote it.
 */
export function streamParams(params: URLSearchParams): StreamParams {
  const lists = {
    severities: listParam(params, 'severity', 'severities'),
    eventTypes: listParam(params, 'event_type', 'event_types'),
    watchdogs: listParam(params, 'watchdog', 'watchdogs'),
    symbols: listParam(params, 'symbol', 'asset', 'assets', 'symbols'),
  };
  let filter: EventFilter | undefined;
  try {
    const { severities, eventTypes, watchdogs, symbols } = parseEventQuery(lists);
    const narrows = [severities, eventTypes, watchdogs, symbols].some((list) => list.length > 0);
    filter = narrows
      ? { severities, eventTypes, watchdogs, symbols, since: undefined, until: undefined }
      : undefined;
  } catch (error) {
    if (error instanceof ValidationError && PARAMETER[error.field]) {
      throw new ValidationError(PARAMETER[error.field]!, error.message.slice(error.field.length + 2));
    }
    throw error;
  }
  const replay = parseReplay({
    last: intParam(params, 'last', `must be an integer from 1 to ${MAX_REPLAY_EVENTS}`),
    since: params.get('since'),
  });
  return { filter, replay };
}

/** The parameters of GET /dashboard/assets/monitor as variables of the `quotes` query. */
export function monitorParams(params: URLSearchParams, assetClasses: readonly string[], maxSymbols: number) {
  const symbols = listParam(params, 'symbols') ?? [];
  if (symbols.length === 0)
    throw new ValidationError('symbols', 'name at least one symbol: symbols=AAPL,MSFT');
  if (symbols.length > maxSymbols) {
    throw new ValidationError('symbols', `at most ${maxSymbols} symbols, got ${symbols.length}`);
  }
  const assetType = params.get('asset_type')?.trim().toLowerCase();
  if (assetType && !assetClasses.includes(assetType)) {
    throw new ValidationError('asset_type', `must be one of ${assetClasses.join(', ')}`);
  }
  const market = params.get('market')?.trim();
  return monitorVariables(symbols, assetType, market);
}

/** A watchdog name as URLs spell it (`price_anomaly`). */
export function isWatchdogName(name: string): name is WatchdogName {
  return (WATCHDOG_NAMES as readonly string[]).includes(name);
}
