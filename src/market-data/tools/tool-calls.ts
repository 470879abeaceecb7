/**
 * What a data tool reports about each call that carries a `sessionId`, so the sessions domain can
 * record it (query history, cache-hit rate). The tools know nothing about sessions themselves.
 */
export interface ToolCall {
  readonly tool: string;
  readonly sessionId: string;
  readonly parameters: Readonly<Record<string, unknown>>;
  readonly resultSummary: string;
  readonly symbols: readonly string[];
  /** Whether the answer came (entirely) from the cache. */
  readonly cacheHit: boolean;
  readonly durationMs: number;
  readonly at: Date;
}

export interface ToolCallRecorder {
  record(call: ToolCall): Promise<void>;
}

/** Reports a call to the recorder when it carries a session (no-op otherwise). */
export async function reportToolCall(
  recorder: ToolCallRecorder | undefined,
  sessionId: string | undefined,
  call: Omit<ToolCall, 'sessionId' | 'durationMs'> & { readonly startedAt: number },
): Promise<void> {
  if (!sessionId || !recorder) return;
  const { startedAt, ...rest } = call;
  await recorder.record({ ...rest, sessionId, durationMs: performance.now() - startedAt });
}
