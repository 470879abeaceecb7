import { describe, expect, it } from 'vitest';
import WebSocket from 'ws';
import { z } from 'zod';
import { defineJob } from '../src/platform/jobs/job.ts';
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
