import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const CLIENT_REQUEST_ID = /^[A-Za-z0-9._-]{1,64}$/;

/** Echoes a well-formed client `x-request-id`, else makes one (contract section 1). */
export function requestIdOf(raw: IncomingMessage): string {
  const sent = raw.headers['x-request-id'];
  return typeof sent === 'string' && CLIENT_REQUEST_ID.test(sent) ? sent : randomUUID();
}
