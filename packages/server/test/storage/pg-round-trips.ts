import { connect, createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';

/** PostgreSQL frontend messages that end a round trip: a simple Query, or the Sync closing an extended-protocol batch. */
const QUERY = 0x51; // 'Q'
const SYNC = 0x53; // 'S'
const PARSE = 0x50; // 'P'
const BIND = 0x42; // 'B'
/** Startup-phase requests with no message type byte: SSLRequest and GSSENCRequest are answered before the real startup. */
const NEGOTIATION_CODES = new Set([80877103, 80877104]);

/**
 * A TCP proxy in front of PostgreSQL that counts the round trips its
 * clients make: each simple Query and each Sync is one wait for the server
 * (a pipelined batch of Parse/Bind/Execute ends in one Sync). Counting on
 * the wire, not in the driver, counts BEGIN and COMMIT and whatever a
 * library sends on its own.
 */
export async function startRoundTripCounter(target: { host: string; port: number }) {
  let roundTrips = 0;
  let statements: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    let pending = Buffer.alloc(0);
    let startedUp = false;
    const parsed = new Map<string, string>();
    client.on('data', (chunk) => {
      upstream.write(chunk);
      pending = pending.length === 0 ? chunk : Buffer.concat([pending, chunk]);
      for (;;) {
        if (!startedUp) {
          if (pending.length < 8) break;
          const length = pending.readInt32BE(0);
          if (pending.length < length) break;
          startedUp = !NEGOTIATION_CODES.has(pending.readInt32BE(4));
          pending = pending.subarray(length);
          continue;
        }
        if (pending.length < 5) break;
        const length = pending.readInt32BE(1);
        if (pending.length < 1 + length) break;
        if (pending[0] === QUERY || pending[0] === SYNC) roundTrips++;
        if (pending[0] === QUERY) statements.push(textAt(pending, 5));
        // Parse names a statement and gives its text; Bind runs one by name (a named one is parsed once a connection).
        if (pending[0] === PARSE) parsed.set(textAt(pending, 5), textAt(pending, pending.indexOf(0, 5) + 1));
        if (pending[0] === BIND) statements.push(parsed.get(textAt(pending, pending.indexOf(0, 5) + 1)) ?? '?');
        pending = pending.subarray(1 + length);
      }
    });
    upstream.on('data', (chunk) => client.write(chunk));
    const end = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', end).on('error', end);
    upstream.on('close', end).on('error', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    /** Round trips since the last `reset`. */
    count: () => roundTrips,
    /** The text of the statements run since the last `reset`, in the order sent. */
    statements: () => statements,
    reset: () => {
      roundTrips = 0;
      statements = [];
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/** A NUL-terminated string of a message from `start`. */
function textAt(message: Buffer, start: number): string {
  return message.toString('utf8', start, message.indexOf(0, start)).replace(/\s+/g, ' ');
}

export type RoundTripCounter = Awaited<ReturnType<typeof startRoundTripCounter>>;
