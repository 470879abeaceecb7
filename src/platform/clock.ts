/** Time comes from here, so tests and detectors can run on a controlled clock. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
