import type { WebSocket } from 'ws';
import { sendText } from '../../platform/ws/whole-frames.ts';
import type { PriceListener, PriceTick } from '../hub/price-hub.ts';
import type { DataOutlet, PriceSubscription } from './price-stream.subscription.ts';
import { messageText } from './price-stream.wire.ts';

/**
 * The per-connection and per-symbol objects of a plain-WebSocket price connection, as classes: their
 * methods are shared, so each connection holds one small object per symbol it follows instead of a
 * pair of closures (and their contexts) per symbol.
 */

/** A connection's socket as its subscriptions send to it. */
export class SocketOutlet implements DataOutlet {
  constructor(
    private readonly socket: WebSocket,
    private readonly maxBufferedBytes: number,
  ) {}

  backedUp(): boolean {
    return this.socket.bufferedAmount > this.maxBufferedBytes;
  }

  /** Data messages are put together from items whose JSON every subscription shares. */
  send(message: object): void {
    if (this.socket.readyState === this.socket.OPEN) sendText(this.socket, messageText(message));
  }
}

/** What the hub calls for one symbol of a subscription. */
export class FeedListener implements PriceListener {
  constructor(
    private readonly subscription: PriceSubscription,
    private readonly symbol: string,
    /** Tells the client that the feed of `symbol` is failing (one function per subscription). */
    private readonly failing: (symbol: string, error: Error) => void,
  ) {}

  tick(tick: PriceTick): void {
    this.subscription.onTick(tick);
  }

  error(error: Error): void {
    this.failing(this.symbol, error);
  }
}
