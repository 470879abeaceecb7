import { createConnection, createServer, type Server, type Socket } from 'node:net';

/**
 * A round-robin TCP proxy for the scale benchmark: the simplest load balancer that still carries
 * WebSockets (it never reads the bytes). Each new connection goes to the next backend; a backend
 * that refuses (a killed instance) is skipped and the next one tried, as a load balancer's health
 * check would do a moment later. Closing either side closes the other.
 */
export interface TcpProxy {
  readonly port: number;
  /** Connections made per backend port since the start. */
  readonly connections: Map<number, number>;
  close(): Promise<void>;
}

export async function startTcpProxy(backends: readonly number[]): Promise<TcpProxy> {
  const connections = new Map(backends.map((port) => [port, 0]));
  const open = new Set<Socket>();
  let next = 0;
  const connect = (client: Socket, tries: number) => {
    if (tries >= backends.length) return client.destroy();
    const port = backends[next++ % backends.length]!;
    const upstream = createConnection({ port, host: '127.0.0.1' });
    let connected = false;
    upstream.on('error', () => {
      // Refused (a killed instance): try the next backend; once connected, just drop both ends.
      if (!connected && client.readable) connect(client, tries + 1);
      else client.destroy();
    });
    upstream.once('connect', () => {
      connected = true;
      connections.set(port, (connections.get(port) ?? 0) + 1);
      open.add(upstream);
      upstream.once('close', () => open.delete(upstream));
      client.pipe(upstream).pipe(client);
      client.once('close', () => upstream.destroy());
      upstream.once('close', () => client.destroy());
      client.resume();
    });
  };
  const server: Server = createServer({ pauseOnConnect: true }, (client) => {
    open.add(client);
    client.once('close', () => open.delete(client));
    client.on('error', () => client.destroy());
    connect(client, 0);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as { port: number }).port,
    connections,
    close: () =>
      new Promise((resolve) => {
        for (const socket of open) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
