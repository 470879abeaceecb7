import type { ExecutionResult } from 'graphql';

/**
 * Push delivery of shared subscription results (see shared-subscriptions.ts), for the fan-out of one
 * event to thousands of subscribers without an async iterator chain per subscriber per event.
 *
 * Two sides meet here:
 * - a source event stream that can push: besides being an async iterator, it offers an event to a
 *   consumer as the event happens, when nothing is queued and its reader holds no event, and keeps
 *   the event for its iterator when the consumer declines it (so the order of events never changes);
 * - a transport that can deliver a result at once (`DirectSink`), registered for the operation's
 *   context before the subscription starts (graphql-ws does; SSE and multipart HTTP do not).
 *
 * When both are present, a shared subscription executes the event (once for every subscriber, as
 * before) and hands a result without errors straight to the sink. A result with errors, or one
 * still being computed, is declined and takes the iterator path through envelop and the transport,
 * where errors are masked, bounded and counted. Per-result hooks (`onNext`) therefore see only the
 * results with errors of such a subscription; they must not be relied on to change results without
 * errors.
 */

/** Where a source stream offers events. Returns whether the consumer took the event. */
export type EventOffer = (event: unknown) => boolean;

/**
 * Runs `offerAll`, which offers several events back to back (those queued when the consumer
 * attached), so that the transport sends what it delivers in one write where it can.
 */
export type OfferBatch = (offerAll: () => void) => void;

/** Runs the offers as they come, for a consumer that does not batch. */
const unbatched: OfferBatch = (offerAll) => offerAll();

const OFFER_EVENTS = Symbol.for('vigil.offerEvents');

/** A source event stream that can push its events (see above). */
export interface PushSource {
  /**
   * From now on, offers events to `offer` first (those already queued too, when nothing was read
   * yet). An event it declines, and every event until the iterator's reader has taken them all and
   * asks again, goes to the iterator: an event is never offered while an earlier one is still on
   * its way through the iterator. The events already queued are offered inside `batch`.
   */
  [OFFER_EVENTS](offer: EventOffer, batch: OfferBatch): void;
}

/** Marks `source` as able to push: `attach` is called with the consumer's offer function. */
export function pushSource<T extends object>(
  source: T,
  attach: (offer: EventOffer, batch: OfferBatch) => void,
): T & PushSource {
  return Object.assign(source, { [OFFER_EVENTS]: attach });
}

export function isPushSource(source: unknown): source is PushSource {
  return typeof (source as Partial<PushSource> | null)?.[OFFER_EVENTS] === 'function';
}

export function attachOffer(source: PushSource, offer: EventOffer, batch: OfferBatch = unbatched): void {
  source[OFFER_EVENTS](offer, batch);
}

/** A transport's delivery of one subscription's results, outside the iterator. */
export interface DirectSink {
  /** Whether a result may be delivered now (the subscription is live and its connection open). */
  accepts(): boolean;
  /** Delivers a result without errors, exactly as the transport would have sent it from the iterator. */
  deliver(result: ExecutionResult): void;
  /** Runs `deliverAll`, which delivers several results at once, sending them in one write. */
  batch?(deliverAll: () => void): void;
}

const sinks = new WeakMap<object, DirectSink>();

/** Registers the sink of the operation whose context value is `context` (before it subscribes). */
export function setDirectSink(context: object, sink: DirectSink): void {
  sinks.set(context, sink);
}

export function directSinkOf(context: unknown): DirectSink | undefined {
  return typeof context === 'object' && context !== null ? sinks.get(context) : undefined;
}
