import { describe, expect, it } from 'vitest';
import { MAX_REASON_CHARS, providerReason } from './provider-reason.ts';

describe('providerReason', () => {
  it("keeps a provider's own words as they are", () => {
    const yahoo = "Data doesn't exist for startDate = 1577836800, endDate = 1578009600";
    expect(providerReason(yahoo)).toBe(yahoo);
    expect(providerReason('Invalid symbol.')).toBe('Invalid symbol.');
  });

  it('masks credentials in URLs: API keys, tokens, crumbs, user and password', () => {
    const said =
      'GET https://www.alphavantage.co/query?function=GLOBAL_QUOTE&symbol=IBM&apikey=SECRETKEY1 failed; ' +
      'https://finnhub.io/api/v1/quote?token=tok_123&symbol=X; https://user:p4ss@mirror.example/v7?crumb=abc';
    const shown = providerReason(said, 1000);
    expect(shown).not.toMatch(/SECRETKEY1|tok_123|p4ss|crumb=abc/);
    expect(shown).toContain('apikey=***');
    expect(shown).toContain('token=***&symbol=X');
    expect(shown).toContain('https://***@mirror.example');
  });

  it('replaces an HTML error page by its title, never the markup', () => {
    const page =
      'upstream error (503): <!DOCTYPE html>\n<html><head><title>503 Service\n Unavailable</title></head>' +
      '<body><script>var k="x"</script><h1>Down</h1></body></html>';
    expect(providerReason(page)).toBe('upstream error (503): (an HTML page: 503 Service Unavailable)');
    expect(providerReason('<html><body>oops</body></html>')).toBe('(an HTML page)');
  });

  it('makes one line of it and bounds its length', () => {
    expect(providerReason('line one\r\n\tline\u0000two')).toBe('line one line two');
    const long = providerReason('x'.repeat(5000));
    expect(long).toHaveLength(MAX_REASON_CHARS);
    expect(long.endsWith('…')).toBe(true);
    expect(providerReason('y'.repeat(400), 300)).toHaveLength(300);
  });
});
