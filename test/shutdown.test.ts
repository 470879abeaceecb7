import { describe, expect, it, vi } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { defineJob } from '../src/platform/jobs/job.ts';
import { exitAfterStop } from '../src/platform/lifecycle.ts';
import { createLogger } from '../src/platform/observability/logger.ts';
import { createTestApp } from './support/app.ts';

describe('graceful stop', () => {
  it('closes open WebSockets with 1001 and stops answering', async () => {
    const t = await createTestApp({ listen: true });
    const socket = new WebSocket(`${t.wsUrl}/graphql`, 'graphql-transport-ws');
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    const closed = new Promise<number>((resolve) => socket.once('close', (code) => resolve(code)));
    await t.close();
    expect(await closed).toBe(1001);
    expect(t.app.state).toBe('stopped');
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
  });
});

describe('graceful stop with subscriptions streaming over HTTP', () => {
  it('ends SSE and multipart subscriptions at once rather than waiting for the deadline', async () => {
    const t = await createTestApp({ listen: true, env: { SHUTDOWN_TIMEOUT_MS: '20000' } });
    const open = async (accept: string) => {
      const response = await fetch(`${t.url}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept },
        body: JSON.stringify({ query: 'subscription { time(intervalMs: 200) }' }),
      });
      expect(response.headers.get('content-type')).toContain(accept.split(';')[0]);
      const reader = response.body!.getReader();
      await reader.read();
      return reader;
    };
    const readToEnd = async (reader: ReadableStreamDefaultReader<Uint8Array>) => {
      let text = '';
      for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
        text += new TextDecoder().decode(chunk.value);
      }
      return text;
    };
    const sse = await open('text/event-stream');
    const multipart = await open('multipart/mixed;subscriptionSpec="1.0",application/json');
    const started = Date.now();
    const [sseTail, multipartTail] = await Promise.all([readToEnd(sse), readToEnd(multipart), t.close()]);
    // Well under the 20 s deadline: nothing waited for it.
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(t.app.state).toBe('stopped');
    // Cut without a completion, as a WebSocket gets 1001: the server went away, the subscription did
    // not end, so clients that retry subscribe again (elsewhere).
    expect(sseTail).not.toContain('event: complete');
    expect(multipartTail).not.toContain('--graphql--');
  });
});

describe('graceful stop with a job running', () => {
  it('waits for the running job to finish before closing the database', async () => {
    const t = await createTestApp({ listen: true });
    const slowJob = defineJob({ name: 'test.slow', schema: z.object({ n: z.number() }) });
    const order: string[] = [];
    let release!: () => void;
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const started = new Promise<void>((resolve) => {
      void t.app.deps.jobs.work(
        slowJob,
        async () => {
          resolve();
          await gate;
          order.push('job finished');
        },
        { pollingIntervalSeconds: 0.5 },
      );
    });
    await t.app.deps.jobs.send(slowJob, { n: 1 });
    await started;
    const stopping = t.close().then(() => order.push('stopped'));
    // The stop is under way (no new requests) while the job still runs.
    await expect(fetch(`${t.url}/healthz`)).rejects.toThrow();
    release();
    await stopping;
    expect(order).toEqual(['job finished', 'stopped']);
  });
});

describe('a stop that arrives while the app is starting', () => {
  it('makes the start give up: no port is opened and the app ends stopped', async () => {
    const t = await createTestApp();
    const start = t.app.start({ port: 0, host: '127.0.0.1' });
    const stopped = t.app.stop();
    await expect(start).rejects.toThrow(/stopped while it was starting/);
    await stopped;
    expect(t.app.state).toBe('stopped');
    await t.database.cleanup();
  });
});

describe('signals', () => {
  it('takes one signal delivered twice at once (terminal and npm) as one; a later one exits at once', async () => {
    const events = ['SIGINT', 'SIGTERM', 'unhandledRejection'];
    const listeners = (e: string) => process.listeners(e as 'SIGINT');
    const before = new Map(events.map((e) => [e, new Set(listeners(e))]));
    const exit = vi.spyOn(process, 'exit').mockImplementation((() => undefined) as never);
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      let finish!: () => void;
      const shutdown = exitAfterStop(createLogger('silent'), () => new Promise<void>((r) => (finish = r)));
      shutdown('SIGINT');
      shutdown('SIGINT');
      expect(exit).not.toHaveBeenCalled();
      vi.setSystemTime(Date.now() + 5_000);
      shutdown('SIGINT');
      expect(exit).toHaveBeenCalledWith(1);
      finish();
      await new Promise((resolve) => setImmediate(resolve));
      expect(exit).toHaveBeenLastCalledWith(0);
    } finally {
      vi.useRealTimers();
      exit.mockRestore();
      for (const e of events) {
        for (const listener of listeners(e)) {
          if (!before.get(e)!.has(listener)) process.removeListener(e, listener as never);
        }
      }
    }
  });
});
