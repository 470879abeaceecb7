import type { Principal } from '../../platform/access/principal.ts';

/**
 * What a data tool reports about each call that carries a `sessionId`, so the sessions domain can
 * record it (query history, cache-hit rate). The tools know nothing about sessions themselves.
 */
export interface ToolCall {
  readonly tool: string;
  readonly sessionId: string;
  /** Who called: a session is tracked only by its owner (or an admin). */
  readonly principal: Principal;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly resultSummary: string;
  readonly symbols: readonly string[];
  /** Whether the answer came (entirely) from the cache; null when the tool cannot tell. */
  readonly cacheHit: boolean | null;
  readonly durationMs: number;
  readonly at: Date;
}

export interface ToolCallRecorder {
  /** Records the call; throws when the session cannot take it (unknown, expired, archived). */
  record(call: ToolCall): Promise<void>;
}

/** Reports a call to the recorder when it carries a session (no-op otherwise). */
export async function reportToolCall(
  recorder: ToolCallRecorder | undefined,
  sessionId: string | undefined,
  principal: Principal | undefined,
  call: Omit<ToolCall, 'sessionId' | 'principal' | 'durationMs'> & { readonly startedAt: number },
): Promise<void> {
  if (!sessionId || !recorder || !principal) return;
  const { startedAt, ...rest } = call;
  await recorder.record({ ...rest, sessionId, principal, durationMs: performance.now() - startedAt });
}
