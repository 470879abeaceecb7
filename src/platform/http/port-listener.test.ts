import { request } from 'node:http';
import { connect } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { PortListener, PortUnavailableError } from './port-listener.ts';

const TIMEOUTS = { keepAliveMs: 65_000, headersMs: 66_000, requestMs: 300_000 };
const open = (port = 0) =>
  PortListener.open({ host: '127.0.0.1', port, timeouts: TIMEOUTS, version: '9.9.9' });

function get(port: number, path: string): Promise<{ status: number; body: string; headers: Headers }> {
  return fetch(`http://127.0.0.1:${port}${path}`).then(async (r) => ({
    status: r.status,
    body: await r.text(),
    headers: r.headers,
  }));
}

describe('the port listener of a start', () => {
  const opened: PortListener[] = [];
  afterEach(async () => {
    await Promise.all(opened.splice(0).map((l) => l.close()));
  });
  const track = async (listener: Promise<PortListener>) => {
    const l = await listener;
    opened.push(l);
    return l;
  };

  it('finds a taken port at once and names the setting to change', async () => {
    const first = await track(open());
    const error = await open(first.port).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PortUnavailableError);
    expect((error as Error).message).toBe(
      `port ${first.port} is already in use on 127.0.0.1: stop the process that listens on 127.0.0.1:${first.port}, or set PORT to a free port (PORT=0 picks one)`,
    );
  });

  it('answers health at once and readiness with the phase under way', async () => {
    const listener = await track(open());
    listener.phase = 'database opened and migrated';
    const health = await get(listener.port, '/healthz');
    expect(health.status).toBe(200);
    expect(JSON.parse(health.body)).toMatchObject({ status: 'ok', state: 'starting', version: '9.9.9' });
    const ready = await get(listener.port, '/readyz');
    expect(ready.status).toBe(503);
    expect(JSON.parse(ready.body)).toEqual({
      status: 'not_ready',
      state: 'starting',
      phase: 'database opened and migrated',
      checks: {},
    });
    expect(ready.headers.get('retry-after')).toBe('1');
  });

  it('holds other requests until the app takes over, then serves them in order', async () => {
    const listener = await track(open());
    const served: string[] = [];
    const answers = [get(listener.port, '/graphql?a'), get(listener.port, '/docs')];
    // Both have reached the server (and wait) once a later request is answered.
    await get(listener.port, '/healthz');
    await new Promise((resolve) => setTimeout(resolve, 20));
    listener.serve(
      (req, res) => {
        served.push(req.url ?? '');
        res.end(`app ${req.url}`);
      },
      (_req, socket) => socket.destroy(),
    );
    const [a, b] = await Promise.all(answers);
    expect([a?.status, a?.body, b?.body]).toEqual([200, 'app /graphql?a', 'app /docs']);
    expect(served).toEqual(['/graphql?a', '/docs']);
  });

  it('answers what waits with 503 SERVER_STARTING when the start fails', async () => {
    const listener = await track(open());
    const waiting = get(listener.port, '/graphql');
    await get(listener.port, '/healthz');
    await new Promise((resolve) => setTimeout(resolve, 20));
    listener.fail('the server could not start');
    const answer = await waiting;
    expect(answer.status).toBe(503);
    expect(JSON.parse(answer.body)).toMatchObject({
      error: { code: 'SERVER_STARTING', message: 'the server could not start' },
    });
    expect((await get(listener.port, '/other')).status).toBe(503);
  });

  it('hands a WebSocket upgrade that arrived during the start to the app', async () => {
    const listener = await track(open());
    const socket = connect(listener.port, '127.0.0.1');
    socket.write(
      'GET /ws HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n',
    );
    const answer = new Promise<string>((resolve) => socket.once('data', (chunk) => resolve(String(chunk))));
    await get(listener.port, '/healthz');
    await new Promise((resolve) => setTimeout(resolve, 20));
    listener.serve(
      (_req, res) => res.end(),
      (req, upgraded) => upgraded.end(`HTTP/1.1 418 Teapot\r\nX-Path: ${req.url}\r\n\r\n`),
    );
    expect(await answer).toMatch(/^HTTP\/1.1 418 Teapot\r\nX-Path: \/ws/);
    socket.destroy();
  });

  it('advertises its keep-alive timeout and keeps an idle connection that long', async () => {
    const listener = await track(
      PortListener.open({
        host: '127.0.0.1',
        port: 0,
        timeouts: { keepAliveMs: 3_000, headersMs: 3_000, requestMs: 0 },
        version: '1',
      }),
    );
    const headers = await new Promise<Record<string, unknown>>((resolve, reject) => {
      request({ port: listener.port, host: '127.0.0.1', path: '/healthz' }, (res) => {
        res.resume();
        resolve(res.headers);
      })
        .on('error', reject)
        .end();
    });
    expect(headers['keep-alive']).toBe('timeout=3');
  });
});
