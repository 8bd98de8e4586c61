import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on loopback that stages the outages a server meets between it
 * and its database or Redis, without touching the real service:
 * - `cut()`: every open connection is reset (RST) and new ones are refused
 *   until `restore()`, like a crashed peer or a dropped route;
 * - `pause()`: connections stay open but nothing is forwarded either way, and
 *   new connections are accepted and held, like a peer whose packets are
 *   dropped; `restore()` lets the held bytes through. A new connection its
 *   client closed meanwhile never reaches the peer: forwarding the 30 that a
 *   loaded server gave up on made PostgreSQL start 30 backends at the
 *   restore, and the server's recovery took 1.0 to 2.6 s instead of 0.3.
 */
export class TcpProxy {
  readonly #server: Server;
  readonly #pairs = new Set<{ client: Socket; upstream: Socket | undefined }>();
  readonly #held: Array<() => void> = [];
  #mode: 'open' | 'cut' | 'paused' = 'open';
  #muted = false;
  readonly port: number;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  static async start(targetPort: number, targetHost = '127.0.0.1'): Promise<TcpProxy> {
    let proxy!: TcpProxy;
    const server = createServer({ pauseOnConnect: true }, (client) => proxy.#accept(client, targetPort, targetHost));
    const port = await new Promise<number>((resolve) => server.listen(0, '127.0.0.1', () => resolve((server.address() as { port: number }).port)));
    proxy = new TcpProxy(server, port);
    return proxy;
  }

  get mode(): 'open' | 'cut' | 'paused' {
    return this.#mode;
  }

  #accept(client: Socket, targetPort: number, targetHost: string): void {
    client.on('error', () => {});
    if (this.#mode === 'cut') {
      client.resetAndDestroy();
      return;
    }
    const pair: { client: Socket; upstream: Socket | undefined } = { client, upstream: undefined };
    this.#pairs.add(pair);
    const open = (held: readonly Buffer[] = []) => {
      if (client.destroyed) return;
      const upstream = connect(targetPort, targetHost);
      for (const chunk of held) upstream.write(chunk);
      pair.upstream = upstream;
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
      upstream.on('close', () => {
        client.destroy();
        this.#pairs.delete(pair);
      });
      client.on('close', () => {
        upstream.destroy();
        this.#pairs.delete(pair);
      });
      client.pipe(upstream);
      upstream.pipe(client);
      if (this.#mode === 'paused') {
        client.pause();
        upstream.pause();
      } else {
        client.resume();
      }
    };
    if (this.#mode === 'paused') {
      // Read and keep what the client sends, as a network holds packets, so a client that gives up meanwhile
      // is seen to close: its connection never reaches the peer, as a dropped SYN's would not.
      const held: Buffer[] = [];
      const hold = (chunk: Buffer) => held.push(chunk);
      client.on('data', hold);
      client.once('close', () => this.#pairs.delete(pair));
      client.resume();
      this.#held.push(() => {
        client.off('data', hold);
        client.pause();
        open(held);
      });
    } else {
      open();
    }
  }

  /** Resets every connection and refuses new ones. */
  cut(): void {
    this.#mode = 'cut';
    for (const { client, upstream } of this.#pairs) {
      client.resetAndDestroy();
      upstream?.resetAndDestroy();
    }
    this.#pairs.clear();
    this.#held.length = 0; // their client sockets were among the pairs reset above
  }

  /** Forwards nothing, in either direction, on old and new connections. */
  pause(): void {
    this.#mode = 'paused';
    for (const { client, upstream } of this.#pairs) {
      client.pause();
      upstream?.pause();
    }
  }

  /**
   * On the connections open now, forwards what the client sends but not what
   * the peer answers, like a route that lost its way back after a request went
   * out; new connections are not touched. `restore()` lets the answers through.
   */
  muteReplies(): void {
    for (const { upstream } of this.#pairs) upstream?.pause();
    this.#muted = true;
  }

  /** Back to forwarding; held connections are opened and held bytes flow. */
  restore(): void {
    const wasPaused = this.#mode === 'paused';
    this.#mode = 'open';
    if (this.#muted) for (const { upstream } of this.#pairs) upstream?.resume();
    this.#muted = false;
    if (!wasPaused) return;
    for (const { client, upstream } of this.#pairs) {
      client.resume();
      upstream?.resume();
    }
    for (const open of this.#held.splice(0)) open();
  }

  async close(): Promise<void> {
    this.cut();
    await new Promise((resolve) => this.#server.close(resolve));
  }
}
