import { describe, expect, it } from 'vitest';
import { PathTable } from './router.ts';

describe('PathTable', () => {
  const table = new PathTable<string>()
    .add('/healthz', 'health')
    .add('/api/alerts/:id', 'alert')
    .add('/api/alerts/:id/enable', 'enable')
    .add('/ws/prices/:symbols', 'prices')
    .add('/mcp/*', 'mcp');

  it('matches literal and parameter segments, decoding parameters', () => {
    expect(table.match('/healthz')).toMatchObject({ value: 'health', params: {} });
    expect(table.match('/api/alerts/a%20b')).toMatchObject({
      value: 'alert',
      template: '/api/alerts/:id',
      params: { id: 'a b' },
    });
    expect(table.match('/api/alerts/x/enable')?.value).toBe('enable');
    expect(table.match('/ws/prices/AAPL,BTC-USD')?.params).toEqual({ symbols: 'AAPL,BTC-USD' });
  });

  it('ignores trailing and doubled slashes', () => {
    expect(table.match('/healthz/')?.value).toBe('health');
    expect(table.match('//api//alerts/7')?.params).toEqual({ id: '7' });
  });

  it('matches a prefix template at any depth below it', () => {
    expect(table.match('/mcp/tools/search-by-symbol')?.value).toBe('mcp');
    expect(table.match('/mcp')?.value).toBe('mcp');
  });

  it('does not match partial paths, extra segments or undecodable parameters', () => {
    expect(table.match('/api/alerts')).toBeUndefined();
    expect(table.match('/api/alerts/1/enable/now')).toBeUndefined();
    expect(table.match('/api/alerts/%E0%A4%A')).toBeUndefined();
  });

  it('rejects templates that are not absolute', () => {
    expect(() => new PathTable().add('healthz', 1)).toThrow(/must start with/);
  });
});
