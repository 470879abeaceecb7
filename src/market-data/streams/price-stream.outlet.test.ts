import { describe, expect, it, vi } from 'vitest';
import type { WebSocket } from 'ws';
import type { PriceTick } from '../hub/price-hub.ts';
import { FeedListener, SocketOutlet } from './price-stream.outlet.ts';
import { messages } from './price-stream.protocol.ts';
import type { PriceSubscription } from './price-stream.subscription.ts';

describe('price connection objects', () => {
  it('sends the text of a message while the socket is open, and says when it is backed up', () => {
    const socket = { OPEN: 1, readyState: 1, bufferedAmount: 0, send: vi.fn() };
    const outlet = new SocketOutlet(socket as unknown as WebSocket, 100);
    const data = messages.data('price', 'sub', [{ symbol: 'AAPL', price: 1 }]);
    outlet.send(data);
    expect(socket.send).toHaveBeenCalledWith(JSON.stringify(data), { binary: false });
    expect(outlet.backedUp()).toBe(false);
    socket.bufferedAmount = 101;
    expect(outlet.backedUp()).toBe(true);
    socket.readyState = 2;
    outlet.send(data);
    expect(socket.send).toHaveBeenCalledTimes(1);
  });

  it('hands the ticks of its symbol to the subscription, and its failures named', () => {
    const onTick = vi.fn();
    const failing = vi.fn();
    const listener = new FeedListener({ onTick } as unknown as PriceSubscription, 'AAPL', failing);
    const tick = { symbol: 'AAPL' } as PriceTick;
    listener.tick(tick);
    const error = new Error('down');
    listener.error(error);
    expect(onTick).toHaveBeenCalledWith(tick);
    expect(failing).toHaveBeenCalledWith('AAPL', error);
  });
});
