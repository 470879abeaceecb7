import { setImmediate as nextTurn } from 'node:timers/promises';

/**
 * Cooperative time slicing for CPU-bound work that runs on the event loop (query evaluation,
 * generated market history). Such work checks `sliceSpent()` between small steps; once the current
 * turn of the loop has run our work for `SLICE_MS`, it waits for `nextSlice()`, so timers,
 * sockets and other requests are served in between.
 *
 * The budget is shared by every caller: tasks resumed in the same turn (say, fifty instruments
 * generating history side by side) do not each get a full slice, which per-task yielding would
 * allow, because Node runs every queued immediate before it polls for I/O again.
 */
export const SLICE_MS = 10;

let sliceStart = performance.now();
let turn: Promise<void> | undefined;

/**
 * Whether the current slice is used up. Check it right before each step of work, in the same
 * synchronous stretch as the step: `while (sliceSpent()) await nextSlice();`. (A check inside an
 * async helper would not do: every waiter would pass it before any of them started working.)
 */
export function sliceSpent(): boolean {
  return performance.now() - sliceStart >= SLICE_MS;
}

/** Resolves in a later turn of the event loop, when a fresh slice starts. */
export function nextSlice(): Promise<void> {
  turn ??= nextTurn().then(() => {
    turn = undefined;
    sliceStart = performance.now();
  });
  return turn;
}
