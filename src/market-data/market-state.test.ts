import { describe, expect, it } from 'vitest';
import { parseInstrument } from './instruments.ts';
import { marketStateAt } from './market-state.ts';

const at = (iso: string) => new Date(iso);

describe('marketStateAt', () => {
  it('follows the US session for US listings, including weekends and holidays', () => {
    const aapl = parseInstrument('AAPL');
    expect(marketStateAt(aapl, at('2025-06-11T15:00:00Z'))).toBe('regular'); // Wed 11:00 EDT
    expect(marketStateAt(aapl, at('2025-06-11T12:00:00Z'))).toBe('pre'); // 08:00 EDT
    expect(marketStateAt(aapl, at('2025-06-11T21:00:00Z'))).toBe('post'); // 17:00 EDT
    expect(marketStateAt(aapl, at('2025-06-12T00:30:00Z'))).toBe('closed'); // 20:30 EDT, after-hours over
    expect(marketStateAt(aapl, at('2025-06-11T07:00:00Z'))).toBe('closed'); // 03:00 EDT, before pre-market
    expect(marketStateAt(aapl, at('2025-06-14T15:00:00Z'))).toBe('closed'); // Saturday
    expect(marketStateAt(aapl, at('2025-12-25T15:00:00Z'))).toBe('closed'); // Christmas
  });

  it('uses the listing market of other exchanges and of known indices', () => {
    expect(marketStateAt(parseInstrument('VOD.L'), at('2025-06-11T09:00:00Z'))).toBe('regular'); // 10:00 BST
    // London has no after-hours trading session: shut after 16:30.
    expect(marketStateAt(parseInstrument('VOD.L'), at('2025-06-11T17:00:00Z'))).toBe('closed');
    expect(marketStateAt(parseInstrument('^GSPC'), at('2025-06-11T15:00:00Z'))).toBe('regular');
    expect(marketStateAt(parseInstrument('^N225'), at('2025-06-11T15:00:00Z'))).toBe('closed'); // 00:00 JST
    // An index is calculated in the regular session only, while its listings trade after hours.
    expect(marketStateAt(parseInstrument('^GSPC'), at('2025-06-11T21:00:00Z'))).toBe('closed');
    expect(marketStateAt(parseInstrument('SPY'), at('2025-06-11T21:00:00Z'))).toBe('post');
  });

  it('says crypto is continuous and fx trades Sunday evening to Friday evening New York time', () => {
    expect(marketStateAt(parseInstrument('BTC/USDT'), at('2025-06-14T15:00:00Z'))).toBe('continuous');
    const eur = parseInstrument('EUR/USD');
    expect(marketStateAt(eur, at('2025-06-13T20:59:00Z'))).toBe('regular'); // Fri 16:59 EDT
    expect(marketStateAt(eur, at('2025-06-13T21:00:00Z'))).toBe('closed'); // Fri 17:00 EDT
    expect(marketStateAt(eur, at('2025-06-14T12:00:00Z'))).toBe('closed'); // Saturday
    expect(marketStateAt(eur, at('2025-06-15T21:00:00Z'))).toBe('regular'); // Sun 17:00 EDT
  });

  it('treats traded macro series by their market and published ones as closed', () => {
    expect(marketStateAt(parseInstrument('VIX'), at('2025-06-11T15:00:00Z'))).toBe('regular');
    expect(marketStateAt(parseInstrument('DXY'), at('2025-06-14T12:00:00Z'))).toBe('closed');
    expect(marketStateAt(parseInstrument('CPI'), at('2025-06-11T15:00:00Z'))).toBe('closed');
  });
});
