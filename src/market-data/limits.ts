/**
 * Limits of market-data requests, the same on every surface that fans out to the providers: the
 * GraphQL `prices` subscription, the price WebSocket and FK-DSL queries.
 */

/** Symbols one request may name: a price subscription, or the distinct symbols of an FK-DSL query. */
export const MAX_SYMBOLS_PER_REQUEST = 50;

/** Price subscriptions one WebSocket connection may hold at once. */
export const MAX_SUBSCRIPTIONS_PER_CONNECTION = 20;
