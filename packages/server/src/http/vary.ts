import type { FastifyReply } from 'fastify';

/** Adds a header name to Vary, keeping what is there (CORS adds Origin, locale negotiation Accept-Language). */
export function addVary(reply: FastifyReply, name: string): FastifyReply {
  const current = reply.getHeader('vary');
  const names = current === undefined ? [] : String(current).split(',').map((n) => n.trim()).filter(Boolean);
  if (!names.some((n) => n.toLowerCase() === name.toLowerCase())) names.push(name);
  return reply.header('vary', names.join(', '));
}
