import { describe, expect, it } from 'vitest';
import { CircuitBreaker, worstCircuit } from './circuit-breaker.ts';

function breaker(failureThreshold = 3, cooldownMs = 1_000) {
  let now = 0;
  const circuit = new CircuitBreaker({ failureThreshold, cooldownMs }, () => now);
  return {
    circuit,
    advance: (ms: number) => {
      now += ms;
    },
  };
}

describe('CircuitBreaker', () => {
  it('opens after the threshold of consecutive failures only', () => {
    const { circuit } = breaker(3);
    circuit.failure();
    circuit.failure();
    circuit.success();
    circuit.failure();
    circuit.failure();
    expect(circuit.state).toBe('closed');
    expect(circuit.allow()).toBe(true);
    circuit.failure();
    expect(circuit.state).toBe('open');
    expect(circuit.allow()).toBe(false);
  });

  it('refuses calls during the cooldown and counts it down', () => {
    const { circuit, advance } = breaker(1, 1_000);
    circuit.failure();
    expect(circuit.remainingMs()).toBe(1_000);
    advance(400);
    expect(circuit.allow()).toBe(false);
    expect(circuit.remainingMs()).toBe(600);
    advance(600);
    expect(circuit.state).toBe('half_open');
    expect(circuit.remainingMs()).toBe(0);
  });

  it('lets exactly one trial through when half-open; its success closes the circuit', () => {
    const { circuit, advance } = breaker(1, 1_000);
    circuit.failure();
    advance(1_000);
    expect(circuit.allow()).toBe(true);
    expect(circuit.allow()).toBe(false);
    circuit.success();
    expect(circuit.state).toBe('closed');
    expect(circuit.allow()).toBe(true);
  });

  it('re-opens for a full cooldown when the trial fails, whatever the threshold', () => {
    const { circuit, advance } = breaker(3, 1_000);
    for (let i = 0; i < 3; i++) circuit.failure();
    advance(1_500);
    expect(circuit.allow()).toBe(true);
    circuit.failure();
    expect(circuit.state).toBe('open');
    expect(circuit.remainingMs()).toBe(1_000);
    advance(1_000);
    expect(circuit.allow()).toBe(true);
  });
});

describe('worstCircuit', () => {
  it('reports open before half-open before closed', () => {
    expect(worstCircuit('closed', 'half_open', 'open')).toBe('open');
    expect(worstCircuit('closed', 'half_open')).toBe('half_open');
    expect(worstCircuit('closed', 'closed')).toBe('closed');
  });
});
