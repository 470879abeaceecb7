import type { Principal } from '../../platform/access/principal.ts';
import type { ToolCall, ToolCallRecorder } from '../../sessions/tool-calls.port.ts';

/** Reports a data tool's call to the sessions' recorder when it carries a session (no-op otherwise). */
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
