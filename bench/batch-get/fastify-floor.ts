// What Fastify itself costs on this route: parse and validate the 100-id body
// with the contract schema, answer pre-serialized bytes. No auth, no catalog.
import Fastify from 'fastify';
import { readFileSync } from 'node:fs';
import { BatchGetSongsRequest } from '@maqam/contract';

const body = readFileSync(process.env.BODY_FILE!);
const app = Fastify({ logger: false });
app.post('/v1/music/songs::batchGet', { schema: { body: BatchGetSongsRequest } }, async (_request, reply) =>
  reply.type('application/json; charset=utf-8').send(body),
);
await app.listen({ port: Number(process.env.PORT), host: '127.0.0.1' });
process.stdout.write('ready\n');
