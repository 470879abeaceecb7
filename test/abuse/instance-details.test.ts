import { afterEach, describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { createTestApp, graphql, type TestApp } from '../support/app.ts';

/**
 * Anonymous callers learn neither where Vigil runs (host names, pids) nor what others watch
 * (subscribed symbols), unless the operator turns EXPOSE_INSTANCE_DETAILS on.
 */
let t: TestApp | undefined;
let socket: WebSocket | undefined;
afterEach(async () => {
  socket?.close();
  socket = undefined;
  await t?.close();
  t = undefined;
});

const INSTANCES = '{ serverInfo { liveInstances { id hostname pid version } } }';

async function watch(url: string, symbol: string): Promise<void> {
  socket = new WebSocket(`${url.replace(/^http/, 'ws')}/ws/prices/${symbol}`);
  socket.on('error', () => {});
  // The first price message means the subscription is registered.
  await new Promise<void>((resolve, reject) => {
    socket!.once('message', () => resolve());
    socket!.once('close', () => reject(new Error('the price socket closed')));
  });
}

async function connections(url: string): Promise<string> {
  return (await fetch(`${url}/ws/connections`)).text();
}

describe('instance details', () => {
  it('are withheld by default: no host name or pid, symbol counts only', async () => {
    t = await createTestApp({ listen: true });
    const answer = await graphql<{ serverInfo: { liveInstances: Array<Record<string, unknown>> } }>(
      t.app,
      INSTANCES,
    );
    expect(answer.body.errors).toBeUndefined();
    expect(answer.body.data?.serverInfo.liveInstances).toEqual([
      expect.objectContaining({ hostname: null, pid: null, version: expect.any(String) }),
    ]);

    await watch(t.url, 'AAPL');
    const listing = await connections(t.url);
    expect(JSON.parse(listing)).toMatchObject({ subscribed_symbol_count: 1, price_stream_connections: 1 });
    expect(listing).not.toContain('AAPL');
  });

  it('are shown with EXPOSE_INSTANCE_DETAILS=true', async () => {
    t = await createTestApp({ listen: true, env: { EXPOSE_INSTANCE_DETAILS: 'true' } });
    const answer = await graphql<{ serverInfo: { liveInstances: Array<Record<string, unknown>> } }>(
      t.app,
      INSTANCES,
    );
    expect(answer.body.data?.serverInfo.liveInstances).toEqual([
      expect.objectContaining({ hostname: expect.any(String), pid: process.pid }),
    ]);

    await watch(t.url, 'AAPL');
    expect(JSON.parse(await connections(t.url))).toMatchObject({
      subscribed_symbols: ['AAPL'],
      hub: { symbols: ['AAPL'] },
    });
  });
});
