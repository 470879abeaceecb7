/**
 * The watchdogs' settings, resolved once at start from the configuration: per watchdog of the
 * registry its interval and its thresholds (its descriptor's defaults, its demo replacements in
 * demo activity, then WATCHDOG_THRESHOLDS key by key), the watched symbols and pairs. A wrong
 * name, key or value (one that cannot work) stops the start with a message naming it.
 */
import { ConfigError } from '../config-error.ts';
import type { AnyWatchdog, ConfiguredWatchdog, WatchdogDescriptor } from './descriptor.ts';
import type { Finding } from './detectors/finding.ts';
import { DEFAULT_REARM_SETTINGS, type RearmSettings } from './detectors/rearm.ts';
import { type EventType, type RegisteredWatchdog, WATCHDOGS, type WatchdogName } from './registry.ts';
import type { Timescale } from './watchdog.ts';

/** Thresholds by watchdog name, each of its descriptor's own type. */
export type ThresholdsByName<W extends AnyWatchdog> = {
  readonly [K in W as K['name']]: K['defaults'];
};
export type DetectorSettings = ThresholdsByName<RegisteredWatchdog>;
/** The findings a list of watchdogs can make. */
export type FindingOf<W extends AnyWatchdog> =
  W extends WatchdogDescriptor<string, infer F, unknown> ? F : never;

export interface WatchdogSettings<
  N extends string = WatchdogName,
  F extends Finding = Finding<unknown, EventType>,
  D = DetectorSettings,
> {
  /** Every watchdog with its thresholds, in registry order: what the checks are made of. */
  readonly watchdogs: readonly ConfiguredWatchdog<N, F>[];
  /** The same thresholds, by name. */
  readonly detectors: D;
  readonly intervalsMs: Readonly<Record<N, number>>;
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

/** The settings of a list of watchdogs (the registry's, or a test's). */
export type SettingsOf<W extends AnyWatchdog> = WatchdogSettings<
  W['name'],
  FindingOf<W>,
  ThresholdsByName<W>
>;

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

/** Every registered watchdog's default thresholds (outside demo activity). */
export const DEFAULT_DETECTOR_SETTINGS: DetectorSettings = Object.freeze(
  Object.fromEntries(WATCHDOGS.map((w) => [w.name, w.defaults])) as DetectorSettings,
);

/** The watchdogs' settings; throws ConfigError naming every wrong name, key or value. */
export function resolveWatchdogSettings(config: WatchdogsConfig): WatchdogSettings {
  const { settings, problems } = checkWatchdogSettings(config);
  if (problems.length > 0) throw new ConfigError(problems);
  return settings;
}

/**
 * The watchdogs' settings and every problem with them, each a line that starts with the setting
 * it is about (`WATCHDOG_THRESHOLDS.price_anomaly.criticalMove: ...`): the configuration reports
 * them with its own problems, in one run. `watchdogs` is the registry unless a test brings its own.
 */
export function checkWatchdogSettings(config: WatchdogsConfig): {
  settings: WatchdogSettings;
  problems: string[];
};
export function checkWatchdogSettings<W extends AnyWatchdog>(
  config: WatchdogsConfig,
  watchdogs: readonly W[],
): { settings: SettingsOf<W>; problems: string[] };
export function checkWatchdogSettings(
  config: WatchdogsConfig,
  watchdogs: readonly AnyWatchdog[] = WATCHDOGS,
): { settings: SettingsOf<AnyWatchdog>; problems: string[] } {
  const problems: string[] = [];
  const names = watchdogs.map((w) => w.name);
  const intervalsMs = Object.fromEntries(names.map((name) => [name, config.intervalSeconds * 1_000]));
  for (const entry of config.intervals) {
    const [name, seconds, ...rest] = entry.split(':');
    const value = Number(seconds);
    if (name === undefined || !names.includes(name) || rest.length > 0) {
      problems.push(`WATCHDOG_INTERVALS: ${entry} is not name:seconds with a name of ${names.join(', ')}`);
    } else if (!Number.isInteger(value) || value < 5 || value > 86_400) {
      problems.push(`WATCHDOG_INTERVALS: ${name} must be whole seconds from 5 to 86400, got ${seconds}`);
    } else intervalsMs[name] = value * 1_000;
  }
  const given = parseThresholds(config.thresholds, names, problems);
  const configured = watchdogs.map((w) => {
    const { watchdog, problems: found } = w.configure(given[w.name] ?? {}, config.demo);
    for (const p of found) problems.push(`WATCHDOG_THRESHOLDS.${w.name}.${p.key}: ${p.message}`);
    return watchdog;
  });
  const settings: SettingsOf<AnyWatchdog> = {
    watchdogs: configured,
    detectors: Object.fromEntries(configured.map((w) => [w.name, w.thresholds])),
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

/** WATCHDOG_THRESHOLDS by watchdog name: an object of settings for each name it gives. */
function parseThresholds(
  text: string,
  names: readonly string[],
  problems: string[],
): Record<string, Readonly<Record<string, unknown>>> {
  let given: unknown;
  try {
    given = JSON.parse(text);
  } catch {
    problems.push('WATCHDOG_THRESHOLDS: is not JSON (expected an object keyed by watchdog name)');
    return {};
  }
  if (!isObject(given)) {
    problems.push('WATCHDOG_THRESHOLDS: must be a JSON object keyed by watchdog name');
    return {};
  }
  const out: Record<string, Readonly<Record<string, unknown>>> = {};
  for (const [name, values] of Object.entries(given)) {
    if (!names.includes(name)) {
      problems.push(`WATCHDOG_THRESHOLDS: ${name} is not a watchdog; known: ${names.join(', ')}`);
    } else if (!isObject(values)) {
      problems.push(`WATCHDOG_THRESHOLDS.${name}: must be an object of settings`);
    } else out[name] = values;
  }
  return out;
}

function isObject(value: unknown): value is Readonly<Record<string, unknown>> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
