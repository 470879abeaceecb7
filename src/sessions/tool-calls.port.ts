import type { Principal } from '../platform/access/principal.ts';

/**
 * The port through which a session hears of the data tools' calls (query history, cache-hit rate):
 * the sessions domain implements `ToolCallRecorder` (session.tracker.ts), the data tools of market
 * data and the FK-DSL call it, and the composition root hands the one to the others.
 *
 * It lives here, with the sessions, because sessions define what they record; it is a type-only
 * file that imports nothing but the platform, so market-data and fk-dsl may import it (and nothing
 * else of sessions) without depending on sessions' code, and sessions import nothing of theirs: the
 * one dependency between them points at this file. How a tool reports a call is on the callers'
 * side (market-data/tools/report-tool-call.ts). The tools know nothing else about sessions.
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
