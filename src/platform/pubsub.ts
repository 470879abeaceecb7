import { createPubSub } from 'graphql-yoga';

/**
 * Typed in-process pub/sub (Yoga's createPubSub) shared by every surface. Channel names map to
 * the argument tuple a publisher sends; domains add their channels here as they arrive. With
 * several instances on one Postgres, the event target is swapped for a LISTEN/NOTIFY one.
 */
// biome-ignore lint/complexity/noBannedTypes: no channel exists yet; domains add theirs here.
export type PubSubChannels = {};

export type PubSub = ReturnType<typeof createPubSub<PubSubChannels>>;

export function createAppPubSub(): PubSub {
  return createPubSub<PubSubChannels>();
}
