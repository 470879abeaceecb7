import { Agent, request } from 'undici';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseConfig } from '../src/config.ts';
import { createTestApp, type TestApp } from './support/app.ts';

/**
 * Keep-alive as clients and proxies expect it. A client keeps an idle connection for its own idle
 * limit (undici and Node's fetch take the server's `Keep-Alive: timeout` hint into account) and
 * reuses it when it asks again within it; the server must not close that connection first, or the
 * client's next request meets a reset. Node's own 5 s default is shorter than many clients' limits
 * and the 60 s of common proxies.
 */
describe('keep-alive', () => {
  it('keeps idle connections longer than common proxies and client pools by default', () => {
    const { http } = parseConfig({});
    expect(http.keepAliveMs).toBeGreaterThan(60_000);
    expect(http.headersMs).toBeGreaterThan(http.keepAliveMs);
  });

  describe('on a server under load', () => {
    const KEEP_ALIVE_MS = 3_000;
    const CLIENT_IDLE_MS = 2_500;
    let t: TestApp;
    beforeAll(async () => {
      t = await createTestApp({ listen: true, env: { HTTP_KEEP_ALIVE_TIMEOUT_MS: String(KEEP_ALIVE_MS) } });
    });
    afterAll(async () => {
      await t.close();
    });

    it('reuses the connection of a client that pauses just under its own idle limit', async () => {
      // The client's own limit, below what the server advertises; no margin subtracted from the hint.
      const client = new Agent({
        keepAliveTimeout: CLIENT_IDLE_MS,
        keepAliveMaxTimeout: CLIENT_IDLE_MS,
        keepAliveTimeoutThreshold: 0,
        connections: 1,
      });
      const load = new Agent({ connections: 16 });
      let connects = 0;
      client.on('connect', () => {
        connects++;
      });
      const ask = async (dispatcher: Agent, query: string) => {
        const response = await request(`${t.url}/graphql`, {
          method: 'POST',
          dispatcher,
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query }),
        });
        await response.body.text();
        return response;
      };
      try {
        const first = await ask(client, '{ __typename }');
        expect(first.statusCode).toBe(200);
        expect(first.headers['keep-alive']).toBe(`timeout=${KEEP_ALIVE_MS / 1000}`);

        // While the client is idle, other clients keep the server busy (FK-DSL evaluations).
        const pause = new Promise((resolve) => setTimeout(resolve, CLIENT_IDLE_MS - 150));
        let loading = true;
        const busy = (async () => {
          let answered = 0;
          while (loading) {
            const batch = await Promise.all(
              Array.from({ length: 16 }, () =>
                ask(
                  load,
                  '{ executeFkDsl(query: "EVALUATE AAPL: VOLATILITY(30d), TECHNICAL(RSI, MACD)") { status } }',
                ),
              ),
            );
            answered += batch.filter((r) => r.statusCode === 200).length;
          }
          return answered;
        })();
        await pause;
        const again = await ask(client, '{ __typename }');
        loading = false;
        expect(again.statusCode).toBe(200);
        // The same connection: the server had not closed it.
        expect(connects).toBe(1);
        expect(await busy).toBeGreaterThan(0);
      } finally {
        await Promise.all([client.close(), load.close()]);
      }
    });
  });
});
