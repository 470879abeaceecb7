import { describe, expect, it } from 'vitest';
import type { DatabaseHandle } from '../../platform/db/database.ts';
import type { Logger } from '../../platform/observability/logger.ts';
import type { PriceUpdate } from '../hub/tick-updates.ts';
import { resolveInstrument } from '../instruments.ts';
import { FeedCoordinator } from './feed-coordinator.ts';

/** A Postgres handle whose server does not answer: every statement and LISTEN fails. */
function unreachable(): DatabaseHandle {
  const refuse = async () => {
    throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
  };
  return { mode: 'postgres', db: { execute: refuse }, listen: refuse } as unknown as DatabaseHandle;
}

function recordingLogger() {
  const warnings: string[] = [];
  const logger = {
    warn: (_o: unknown, msg: string) => warnings.push(msg),
    info: () => undefined,
    debug: () => undefined,
  } as unknown as Logger;
  return { logger, warnings };
}

const clock = {
  now: () => new Date(),
  setTimeout: (fn: () => void, ms: number) => setTimeout(fn, ms),
  clearTimeout: (t: unknown) => clearTimeout(t as NodeJS.Timeout),
};

describe('FeedCoordinator when the relay is down', () => {
  it('polls every feed itself, says so once, and relays nothing', async () => {
    const { logger, warnings } = recordingLogger();
    const coordinator = new FeedCoordinator({
      database: unreachable(),
      instanceId: 'a',
      pollIntervalMs: 20,
      clock: clock as never,
      logger,
    });
    await coordinator.start();
    const started: string[] = [];
    const handle = (key: string) => ({
      startUpstream: () => {
        started.push(key);
        return () => undefined;
      },
      relayed: (_u: PriceUpdate) => undefined,
      latest: () => undefined,
    });
    const leaveBtc = coordinator.join(
      'crypto:BTC/USDT',
      resolveInstrument('BTC/USDT'),
      handle('crypto:BTC/USDT'),
    );
    coordinator.join('crypto:ETH/USDT', resolveInstrument('ETH/USDT'), handle('crypto:ETH/USDT'));
    // A few failed rounds.
    await new Promise((r) => setTimeout(r, 120));
    expect(started.sort()).toEqual(['crypto:BTC/USDT', 'crypto:ETH/USDT']);
    expect(coordinator.stats()).toMatchObject({ mode: 'degraded', owned: 2, followed: 0 });
    expect(warnings.filter((w) => w.startsWith('price relay unavailable'))).toHaveLength(1);
    coordinator.published('crypto:BTC/USDT', {} as PriceUpdate);
    expect(coordinator.stats().sent).toBe(0);
    leaveBtc();
    expect(coordinator.stats().owned).toBe(1);
    await coordinator.stop();
  });
});
