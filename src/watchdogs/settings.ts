/**
 * The watchdogs' settings, resolved once at start from the configuration: per watchdog its interval
 * and its detector's thresholds (defaults from each detector, replaced key by key by
 * WATCHDOG_THRESHOLDS), the watched symbols and pairs. A wrong name, key or value stops the start
 * with a message naming it.
 */
import { ConfigError } from '../config-error.ts';
import {
  type CorrelationBreakdownSettings,
  DEFAULT_CORRELATION_BREAKDOWN_SETTINGS,
} from './detectors/correlation-breakdown.detector.ts';
import {
  DEFAULT_EARNINGS_ANOMALY_SETTINGS,
  type EarningsAnomalySettings,
} from './detectors/earnings-anomaly.detector.ts';
import {
  DEFAULT_EXCHANGE_OUTAGE_SETTINGS,
  type ExchangeOutageSettings,
} from './detectors/exchange-outage.detector.ts';
import {
  DEFAULT_FUNDING_RATE_SETTINGS,
  type FundingRateSettings,
} from './detectors/funding-rate.detector.ts';
import {
  DEFAULT_LIQUIDITY_DROP_SETTINGS,
  type LiquidityDropSettings,
} from './detectors/liquidity-drop.detector.ts';
import {
  DEFAULT_PRICE_ANOMALY_SETTINGS,
  type PriceAnomalySettings,
} from './detectors/price-anomaly.detector.ts';
import { DEFAULT_REARM_SETTINGS, type RearmSettings } from './detectors/rearm.ts';
import { WATCHDOG_NAMES, type WatchdogName } from './detectors/types.ts';
import {
  DEFAULT_UNUSUAL_VOLUME_SETTINGS,
  type UnusualVolumeSettings,
} from './detectors/unusual-volume.detector.ts';
import {
  DEFAULT_WHALE_MOVEMENT_SETTINGS,
  type WhaleMovementSettings,
} from './detectors/whale-movement.detector.ts';

export interface DetectorSettings {
  readonly earnings_anomaly: EarningsAnomalySettings;
  readonly unusual_volume: UnusualVolumeSettings;
  readonly whale_movement: WhaleMovementSettings;
  readonly funding_rate: FundingRateSettings;
  readonly liquidity_drop: LiquidityDropSettings;
  readonly correlation_breakdown: CorrelationBreakdownSettings;
  readonly exchange_outage: ExchangeOutageSettings;
  readonly price_anomaly: PriceAnomalySettings;
}

export const DEFAULT_DETECTOR_SETTINGS: DetectorSettings = Object.freeze({
  earnings_anomaly: DEFAULT_EARNINGS_ANOMALY_SETTINGS,
  unusual_volume: DEFAULT_UNUSUAL_VOLUME_SETTINGS,
  whale_movement: DEFAULT_WHALE_MOVEMENT_SETTINGS,
  funding_rate: DEFAULT_FUNDING_RATE_SETTINGS,
  liquidity_drop: DEFAULT_LIQUIDITY_DROP_SETTINGS,
  correlation_breakdown: DEFAULT_CORRELATION_BREAKDOWN_SETTINGS,
  exchange_outage: DEFAULT_EXCHANGE_OUTAGE_SETTINGS,
  price_anomaly: DEFAULT_PRICE_ANOMALY_SETTINGS,
});

/**
 * Demo activity's defaults: the simulated market plays its anomalies within minutes, so the
 * windows that are days long elsewhere are minutes long here (volume against the previous 30
 * minutes, correlation of 1-minute returns over 30 minutes against 6 hours). Thresholds are the same.
 */
export const DEMO_DETECTOR_SETTINGS: Partial<{
  [K in keyof DetectorSettings]: Partial<DetectorSettings[K]>;
}> = Object.freeze({
  correlation_breakdown: { shortWindowMs: 30 * 60_000, longWindowMs: 6 * 3_600_000 },
  // Demo flash moves partly recover within minutes: judge them over 5 minutes, not 15.
  price_anomaly: { windowMs: 5 * 60_000 },
});

/** Bars the data-fetching side of a watchdog reads: daily, or 1-minute bars in demo activity. */
export type Timescale = 'daily' | 'minute';

export interface WatchdogSettings {
  readonly detectors: DetectorSettings;
  readonly intervalsMs: Readonly<Record<WatchdogName, number>>;
  /** Watched symbols, as configured (`AAPL`, `BTC/USDT`). */
  readonly symbols: readonly string[];
  readonly pairs: readonly (readonly [string, string])[];
  readonly timescale: Timescale;
  readonly rearm: RearmSettings;
  readonly eventRetentionDays: number;
  /** Listeners of the live event feed at once on this instance (stream clients and subscriptions). */
  readonly eventMaxListeners: number;
  /** Whether this instance schedules and runs checks. */
  readonly run: boolean;
}

export interface WatchdogsConfig {
  readonly run: boolean;
  readonly symbols: readonly string[];
  readonly correlationPairs: readonly (readonly [string, string])[];
  readonly intervalSeconds: number;
  readonly intervals: readonly string[];
  readonly thresholds: string;
  readonly eventRetentionDays: number;
  readonly eventMaxListeners: number;
  readonly demo: boolean;
}

/** The watchdogs' settings; throws ConfigError naming every wrong name, key or value. */
export function resolveWatchdogSettings(config: WatchdogsConfig): WatchdogSettings {
  const { settings, problems } = checkWatchdogSettings(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/**
 * The watchdogs' settings and every problem with them, each a line that starts with the setting
 * it is about (`WATCHDOG_THRESHOLDS.price_anomaly.highMove: ...`): the configuration reports
 * them with its own problems, in one run.
 */
export function checkWatchdogSettings(config: WatchdogsConfig): {
  settings: WatchdogSettings;
  problems: string[];
} {
  const problems: string[] = [];
  const intervalsMs = Object.fromEntries(
    WATCHDOG_NAMES.map((name) => [name, config.intervalSeconds * 1_000]),
  ) as Record<WatchdogName, number>;
  for (const entry of config.intervals) {
    const [name, seconds, ...rest] = entry.split(':');
    const value = Number(seconds);
    if (!isName(name) || rest.length > 0) {
      problems.push(
        `WATCHDOG_INTERVALS: ${entry} is not name:seconds with a name of ${WATCHDOG_NAMES.join(', ')}`,
      );
    } else if (!Number.isInteger(value) || value < 5 || value > 86_400) {
      problems.push(`WATCHDOG_INTERVALS: ${name} must be whole seconds from 5 to 86400, got ${seconds}`);
    } else intervalsMs[name] = value * 1_000;
  }
  const detectors = mergeThresholds(config, problems);
  const settings: WatchdogSettings = {
    detectors,
    intervalsMs,
    symbols: config.symbols,
    pairs: config.correlationPairs,
    timescale: config.demo ? 'minute' : 'daily',
    rearm: DEFAULT_REARM_SETTINGS,
    eventRetentionDays: config.eventRetentionDays,
    eventMaxListeners: config.eventMaxListeners,
    run: config.run,
  };
  return { settings, problems };
}

function mergeThresholds(config: WatchdogsConfig, problems: string[]): DetectorSettings {
  let given: unknown;
  try {
    given = JSON.parse(config.thresholds);
  } catch {
    problems.push('WATCHDOG_THRESHOLDS: is not JSON (expected an object keyed by watchdog name)');
    return DEFAULT_DETECTOR_SETTINGS;
  }
  if (typeof given !== 'object' || given === null || Array.isArray(given)) {
    problems.push('WATCHDOG_THRESHOLDS: must be a JSON object keyed by watchdog name');
    return DEFAULT_DETECTOR_SETTINGS;
  }
  const out: Record<string, Record<string, number>> = {};
  for (const name of WATCHDOG_NAMES) {
    out[name] = {
      ...(DEFAULT_DETECTOR_SETTINGS[name] as unknown as Record<string, number>),
      ...((config.demo ? DEMO_DETECTOR_SETTINGS[name] : undefined) as Record<string, number> | undefined),
    };
  }
  for (const [name, values] of Object.entries(given)) {
    if (!isName(name)) {
      problems.push(`WATCHDOG_THRESHOLDS: ${name} is not a watchdog; known: ${WATCHDOG_NAMES.join(', ')}`);
      continue;
    }
    if (typeof values !== 'object' || values === null || Array.isArray(values)) {
      problems.push(`WATCHDOG_THRESHOLDS.${name}: must be an object of settings`);
      continue;
    }
    const target = out[name]!;
    for (const [key, value] of Object.entries(values)) {
      if (!(key in target)) {
        problems.push(
          `WATCHDOG_THRESHOLDS.${name}.${key}: unknown; known: ${Object.keys(target).join(', ')}`,
        );
      } else if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
        problems.push(`WATCHDOG_THRESHOLDS.${name}.${key}: must be a non-negative number`);
      } else target[key] = value;
    }
  }
  return out as unknown as DetectorSettings;
}

function isName(name: string | undefined): name is WatchdogName {
  return (WATCHDOG_NAMES as readonly (string | undefined)[]).includes(name);
}
