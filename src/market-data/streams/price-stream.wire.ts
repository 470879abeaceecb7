import type { StreamType } from './price-stream.protocol.ts';

/**
 * The bytes of the plain-WebSocket price protocol, built once where subscribers share them. A data
 * message is per subscription by nature (it names its subscription), but its items are not: the
 * price item of a tick is one object for every subscription that carries it (see `priceItem`), and
 * its JSON is built once, the first time a subscription sends it. A data message is its items'
 * JSON joined in the envelope, byte for byte what `JSON.stringify` of the message gives.
 */

/** A `data` message as `messages.data` builds it (same keys, same order). */
interface DataMessage {
  readonly type: 'data';
  readonly stream_type: StreamType;
  readonly subscription_id: string;
  readonly data: readonly unknown[];
  readonly timestamp: string;
  readonly metadata: { readonly count: number };
}

/** Item JSON by item object; an entry lives as long as its item (a tick's, shared, or one subscription's bar). */
const texts = new WeakMap<object, string>();

/** The JSON of an item, built once per item object. */
export function itemText(item: object): string {
  let text = texts.get(item);
  if (text === undefined) {
    text = JSON.stringify(item);
    texts.set(item, text);
  }
  return text;
}

function isDataMessage(message: object): message is DataMessage {
  return (message as { type?: unknown }).type === 'data';
}

/** The text of a data message from its items' shared JSON. */
export function dataMessageText(message: DataMessage): string {
  let items = '';
  for (const item of message.data) {
    // Items are objects; anything else is written as JSON.stringify writes it in an array.
    const text =
      typeof item === 'object' && item !== null ? itemText(item) : (JSON.stringify(item) ?? 'null');
    items += items === '' ? text : `,${text}`;
  }
  return (
    `{"type":"data","stream_type":${JSON.stringify(message.stream_type)}` +
    `,"subscription_id":${JSON.stringify(message.subscription_id)}` +
    `,"data":[${items}],"timestamp":${JSON.stringify(message.timestamp)}` +
    `,"metadata":{"count":${JSON.stringify(message.metadata.count)}}}`
  );
}

/** The text of any server message: a data message from its shared items, any other as it is. */
export function messageText(message: object): string {
  return isDataMessage(message) ? dataMessageText(message) : JSON.stringify(message);
}

/**
 * Heartbeats of one beat: every connection with the same number of subscriptions gets the same
 * text, built once (the beat's time is the same for all).
 */
export function heartbeatTexts(build: (activeSubscriptions: number) => object): (count: number) => string {
  const built = new Map<number, string>();
  return (count) => {
    let text = built.get(count);
    if (text === undefined) {
      text = JSON.stringify(build(count));
      built.set(count, text);
    }
    return text;
  };
}
