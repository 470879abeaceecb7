/** The longest delay setTimeout holds (about 24.8 days); later expiries are re-armed in steps. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * Calls `onExpired` when `expiresAt` passes (at once if it has); nothing for a key without expiry.
 * Returns the cancel function. Timers do not keep the process alive.
 */
export function onExpiry(expiresAt: Date | null | undefined, onExpired: () => void): () => void {
  if (!expiresAt) return () => {};
  let timer: NodeJS.Timeout | undefined;
  const arm = () => {
    const delay = expiresAt.getTime() - Date.now();
    if (delay <= 0) {
      timer = undefined;
      onExpired();
      return;
    }
    timer = setTimeout(arm, Math.min(delay, MAX_TIMER_MS));
    timer.unref();
  };
  arm();
  return () => clearTimeout(timer);
}
