import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, parseConfig, readEnvFile } from './config.ts';

describe('parseConfig', () => {
  it('gives the documented defaults for an empty environment', () => {
    const config = parseConfig({});
    expect(config.port).toBe(4000);
    expect(config.host).toBe('127.0.0.1');
    expect(config.database.url).toBeUndefined();
    expect(config.database.dataDir).toMatch(/\.data$/);
    expect(config.sessions).toEqual({
      defaultTtlHours: 24,
      maxTtlHours: 168,
      cleanupIntervalMinutes: 60,
      retentionDays: 30,
      maxQueriesPerSession: 1000,
      enableAnalytics: true,
    });
    expect(config.smtp.port).toBe(587);
    expect(config.rateLimit).toEqual({ max: 300, windowSeconds: 60 });
  });

  it('coerces numbers and booleans from strings', () => {
    const config = parseConfig({ PORT: '8080', SESSION_ENABLE_ANALYTICS: 'false', TRUST_PROXY: '1' });
    expect(config.port).toBe(8080);
    expect(config.sessions.enableAnalytics).toBe(false);
    expect(config.trustProxyHops).toBe(1);
  });

  it('treats empty strings as unset for optional settings', () => {
    expect(parseConfig({ DATABASE_URL: '', SMTP_HOST: '' }).database.url).toBeUndefined();
  });

  it('lists every problem at once, naming each variable, and never echoes secrets', () => {
    let error: unknown;
    try {
      parseConfig({
        PORT: 'eighty',
        LOG_LEVEL: 'loud',
        DATABASE_URL: 'mysql://secret@db/x',
        SESSION_DEFAULT_TTL_HOURS: '500',
        SMTP_FROM_EMAIL: 'not-an-email',
        SMTP_USER: 'mailer',
      });
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(ConfigError);
    const problems = (error as ConfigError).problems;
    expect(problems.map((p) => p.split(':')[0])).toEqual(
      expect.arrayContaining(['PORT', 'LOG_LEVEL', 'DATABASE_URL', 'SMTP_FROM_EMAIL', 'SMTP_PASSWORD']),
    );
    expect(problems.find((p) => p.startsWith('PORT'))).toContain('"eighty"');
    expect((error as Error).message).not.toContain('secret@db');
  });

  it('checks settings against each other', () => {
    expect(() => parseConfig({ SESSION_DEFAULT_TTL_HOURS: '200', SESSION_MAX_TTL_HOURS: '100' })).toThrow(
      /SESSION_DEFAULT_TTL_HOURS: must not exceed SESSION_MAX_TTL_HOURS/,
    );
  });

  it('defaults to the simulated market and reads provider settings', () => {
    expect(parseConfig({}).marketData).toMatchObject({
      providers: ['simulated'],
      simulated: { seed: 'vigil', activity: 'normal', tickMs: 1000 },
      binance: { baseUrl: 'https://api.binance.com' },
    });
    const live = parseConfig({
      MARKET_DATA_PROVIDERS: ' Yahoo, binance,yahoo ',
      YAHOO_BASE_URL: 'http://127.0.0.1:9999/',
    }).marketData;
    expect(live.providers).toEqual(['yahoo', 'binance']);
    expect(live.yahoo.baseUrl).toBe('http://127.0.0.1:9999');
  });

  it('refuses unknown providers, keyless keyed providers, and simulated mixed with live ones', () => {
    expect(() => parseConfig({ MARKET_DATA_PROVIDERS: 'yahoo,bloomberg' })).toThrow(
      /MARKET_DATA_PROVIDERS: bloomberg is not a provider; known: simulated, yahoo/,
    );
    expect(() => parseConfig({ MARKET_DATA_PROVIDERS: 'finnhub' })).toThrow(/FINNHUB_API_KEY: is required/);
    expect(() => parseConfig({ MARKET_DATA_PROVIDERS: 'simulated,yahoo' })).toThrow(
      /simulated cannot be combined/,
    );
    expect(() => parseConfig({ SIMULATED_ACTIVITY: 'wild' })).toThrow(
      /SIMULATED_ACTIVITY: must be normal or demo/,
    );
  });

  it('returns a frozen object', () => {
    const config = parseConfig({});
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sessions)).toBe(true);
  });
});

describe('readEnvFile', () => {
  it('reads KEY=value lines, and is empty when the file is absent', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-env-'));
    const file = join(dir, '.env');
    expect(readEnvFile(file)).toEqual({});
    writeFileSync(file, '# comment\nPORT=5000\nSMTP_FROM_EMAIL="alerts@example.com"\n');
    expect(readEnvFile(file)).toEqual({ PORT: '5000', SMTP_FROM_EMAIL: 'alerts@example.com' });
  });
});

describe('WATCHDOG_CORRELATION_PAIRS', () => {
  const pairs = (value?: string) =>
    parseConfig(value === undefined ? {} : { WATCHDOG_CORRELATION_PAIRS: value }).watchdogs.correlationPairs;

  it('defaults to ten pairs, crypto first, and reads `A:B,C:D` in order', () => {
    expect(pairs()).toHaveLength(10);
    expect(pairs()[0]).toEqual(['BTC/USDT', 'ETH/USDT']);
    expect(pairs()[9]).toEqual(['JPM', 'XLF']);
    expect(pairs(' sol/usdt : avax/usdt ,, KO:PEP ')).toEqual([
      ['SOL/USDT', 'AVAX/USDT'],
      ['KO', 'PEP'],
    ]);
    expect(pairs('')).toEqual([]);
  });

  it('names every entry that is not two distinct symbols, and caps the list at 50 pairs', () => {
    expect(() => pairs('AAPL,KO:KO,A:B:C,:MSFT,XOM:CVX')).toThrow(ConfigError);
    try {
      pairs('AAPL,KO:KO,A:B:C,:MSFT,XOM:CVX');
    } catch (error) {
      expect((error as ConfigError).problems.map((p) => p.split(' (got')[0])).toEqual([
        "WATCHDOG_CORRELATION_PAIRS: AAPL is not two distinct symbols joined by ':'",
        "WATCHDOG_CORRELATION_PAIRS: KO:KO is not two distinct symbols joined by ':'",
        "WATCHDOG_CORRELATION_PAIRS: A:B:C is not two distinct symbols joined by ':'",
        "WATCHDOG_CORRELATION_PAIRS: :MSFT is not two distinct symbols joined by ':'",
      ]);
    }
    const many = (n: number) => Array.from({ length: n }, (_, i) => `A${i}:B${i}`).join(',');
    expect(pairs(many(50))).toHaveLength(50);
    expect(() => pairs(many(51))).toThrow(/WATCHDOG_CORRELATION_PAIRS: at most 50 pairs, got 51/);
  });
});

describe('persisted operations and APQ', () => {
  const problems = (env: Record<string, string>) => {
    try {
      parseConfig(env);
      return [];
    } catch (error) {
      return (error as ConfigError).problems.map((p) => p.split(' (got')[0]);
    }
  };

  it('keeps APQ on with bounds in milliseconds, and 0 entries turns it off', () => {
    expect(parseConfig({}).graphql.persisted).toEqual({
      listed: undefined,
      only: false,
      apq: { maxEntries: 1000, maxBytes: 4 * 1024 * 1024, ttlMs: 3_600_000 },
    });
    expect(parseConfig({ APQ_MAX_ENTRIES: '0' }).graphql.persisted.apq).toBeUndefined();
  });

  it('reads the operations file at start, and refuses only-mode without one or with a broken one', () => {
    const dir = mkdtempSync(join(tmpdir(), 'vigil-config-'));
    const file = join(dir, 'operations.json');
    writeFileSync(file, JSON.stringify({ abc: '{ __typename }' }));
    const config = parseConfig({ PERSISTED_OPERATIONS_FILE: file, PERSISTED_OPERATIONS_ONLY: 'true' });
    expect(config.graphql.persisted).toMatchObject({ listed: { abc: '{ __typename }' }, only: true });
    expect(problems({ PERSISTED_OPERATIONS_ONLY: 'true' })).toEqual([
      'PERSISTED_OPERATIONS_FILE: is required when PERSISTED_OPERATIONS_ONLY=true (the operations that may run)',
    ]);
    writeFileSync(file, '{');
    expect(problems({ PERSISTED_OPERATIONS_FILE: file })).toEqual([
      `PERSISTED_OPERATIONS_FILE: cannot read ${file} (not valid JSON)`,
    ]);
  });
});
