import { ValidationError } from '../../platform/errors.ts';
import { MARKET_CODES, marketInfo } from '../markets.ts';

/**
 * Argument rules shared by the data tools, on every surface (GraphQL, MCP, REST): each problem is
 * reported with the argument's name.
 */
export const DEPTHS = ['quick', 'standard', 'deep'] as const;
export type Depth = (typeof DEPTHS)[number];

export const DEPTH_DESCRIPTIONS: Readonly<Record<Depth, string>> = {
  quick: 'the latest quote with its lineage (one provider round trip, usually cached)',
  standard:
    'quick + profile and key statistics: market cap, P/E, beta, average volume, 52-week range, sector ' +
    '(for coins: 24 h high/low/volume and market cap)',
  deep:
    'standard + a technical summary from about 400 daily bars (RSI 14, SMA 20/50/200, EMA 20, MACD 12/26/9, ' +
    '30-day volatility, trend) and the last 30 daily bars (for coins also order-book depth and the funding rate)',
};

/** Narrative languages; other codes are refused rather than answered in a language not asked for. */
export const LANGUAGES = ['en'] as const;

export function parseDepth(value: string | undefined | null): Depth {
  const depth = (value ?? 'standard').trim().toLowerCase();
  if (!(DEPTHS as readonly string[]).includes(depth)) {
    throw new ValidationError('depth', `must be one of ${DEPTHS.join(', ')}; got ${JSON.stringify(value)}`);
  }
  return depth as Depth;
}

export function parseMarket(value: string | undefined | null): string {
  const code = (value ?? 'US').trim().toUpperCase();
  if (!marketInfo(code)) {
    throw new ValidationError(
      'market',
      `unknown market ${JSON.stringify(value)}; known markets: ${MARKET_CODES.join(', ')}`,
    );
  }
  return code;
}

export function parseLanguage(value: string | undefined | null): string {
  const language = (value ?? 'en').trim().toLowerCase();
  if (!/^[a-z]{2}(-[a-z]{2})?$/.test(language)) {
    throw new ValidationError('language', `must be a language code like "en", got ${JSON.stringify(value)}`);
  }
  const base = language.slice(0, 2);
  if (!(LANGUAGES as readonly string[]).includes(base)) {
    throw new ValidationError(
      'language',
      `narratives are available in ${LANGUAGES.join(', ')}; got ${JSON.stringify(value)}`,
    );
  }
  return base;
}

export function parseSessionId(value: string | undefined | null): string | undefined {
  if (value === undefined || value === null) return undefined;
  const id = value.trim();
  if (id.length === 0 || id.length > 128 || !/^[A-Za-z0-9_.:-]+$/.test(id)) {
    throw new ValidationError('sessionId', 'must be 1 to 128 letters, digits or . _ : -');
  }
  return id;
}

/** A venue name as a user writes it (`binance`, `Coinbase`): lower-cased and checked. */
export function parseVenue(value: string | undefined | null, fallback: string): string {
  const venue = (value ?? fallback).trim().toLowerCase();
  if (!/^[a-z0-9][a-z0-9-]{1,31}$/.test(venue)) {
    throw new ValidationError(
      'exchange',
      `must be an exchange name like "binance", got ${JSON.stringify(value)}`,
    );
  }
  return venue;
}
