import type { GraphQLField } from 'graphql';

/**
 * The promise a root subscription field makes when it is marked `sharedResults()`: its events
 * resolve the same whoever subscribed (no resolver below it reads the caller), and its source hands
 * the same event object to every subscriber that should see the same answer. The transports use
 * it to execute an event once for all its subscribers (transports/shared-execution.ts); without
 * them the mark changes nothing.
 */

const EXTENSION = 'sharedResults';

/** Field options for a root subscription field whose events resolve the same for everyone. */
export function sharedResults(): { extensions: Record<string, unknown> } {
  return { extensions: { [EXTENSION]: true } };
}

/** Whether `field` was declared with `sharedResults()`. */
export function declaresSharedResults(field: GraphQLField<unknown, unknown> | undefined): boolean {
  return field?.extensions?.[EXTENSION] === true;
}
