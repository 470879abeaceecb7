import { moduleDeps } from '../context.ts';
import type { Clock } from '../platform/clock.ts';
import type { ToolCallRecorder } from '../sessions/tool-calls.port.ts';
import type { FkDslService } from './fk-dsl.service.ts';

/** What the FK-DSL module needs from the app (the composition root wires these). */
export interface FkDslDeps {
  readonly fkDsl: FkDslService;
  readonly clock: Clock;
  /** Where a query run with a sessionId is reported (the sessions domain records it). */
  readonly toolCalls: ToolCallRecorder;
}

/** The FK-DSL module's dependencies in its resolvers. */
export const fkDslDeps = moduleDeps<FkDslDeps>();
