import { describe, expect, it } from 'vitest';
import { DeliveryGates } from './delivery-gates.ts';
import { DestinationHealth } from './destination-health.ts';

function gates(maxInFlight = 8, ownerConcurrency = 2) {
  const health = new DestinationHealth({ now: () => 1_000_000, random: () => 0.5 });
  return { g: new DeliveryGates({ maxInFlight, ownerConcurrency, health }), health };
}

describe('DeliveryGates', () => {
  it("holds an owner past its share toward a new destination, and lets another owner's go", () => {
    const { g } = gates();
    expect(g.admit('a', 'webhook new')).toMatchObject({ go: true });
    expect(g.admit('a', 'webhook new')).toMatchObject({ go: true });
    expect(g.admit('a', 'webhook new')).toEqual({ go: false, reason: 'owner', until: null });
    expect(g.allowances()).toEqual({ owners: ['a'], allowed: [0], otherwise: 7 });
    expect(g.admit('b', 'webhook other')).toMatchObject({ go: true });
  });

  it('lets an owner past its share use spare workers toward a proven receiver, keeping a share free', () => {
    const { g, health } = gates(8, 2);
    health.settle('webhook fast', 'answered');
    const slots = [];
    for (let i = 0; i < 8; i++) slots.push(g.admit('a', 'webhook fast'));
    // 8 workers, a quarter of a share (1) kept for the others: 7 for one owner's burst.
    expect(slots.filter((s) => s.go)).toHaveLength(7);
    expect(g.admit('b', 'webhook other')).toMatchObject({ go: true });
    expect(g.admit('c', 'webhook other')).toEqual({ go: false, reason: 'busy', until: null });
  });

  it('settling frees the slot and says when held deliveries may have a turn', () => {
    const { g } = gates();
    let turns = 0;
    g.onTurn = () => turns++;
    const first = g.admit('a', 'webhook x');
    g.admit('a', 'webhook x');
    expect(g.admit('a', 'webhook x')).toMatchObject({ go: false, reason: 'owner' });
    if (!first.go) throw new Error('admitted');
    g.settle(first, 'answered');
    expect(turns).toBe(1);
    expect(g.inFlight).toBe(1);
    expect(g.admit('a', 'webhook x')).toMatchObject({ go: true });
  });

  it('holds deliveries to a paused destination until its pause ends', () => {
    const { g, health } = gates();
    for (let i = 0; i < 3; i++) health.settle('webhook dead', 'failed');
    expect(g.admit('a', 'webhook dead')).toEqual({
      go: false,
      reason: 'destination',
      until: expect.any(Number),
    });
    expect(g.inFlight).toBe(0);
  });
});
