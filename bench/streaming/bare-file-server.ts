// The bare file server: node:http answering every GET with one file's bytes read from disk (FILE), or, for a
// `Range: bytes=a-b` header, those bytes as a 206. No check, no framework: what serving a segment costs Node and
// the kernel alone, the floor under Maqam's segment route.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';

const file = process.env.FILE!;
// BARE_HEAP_MB: that many MB of live objects, kept for the server's life (bench/streaming/video.ts, BENCH_PROFILE), so
// the collector has as much to mark as in a real server's heap.
const ballast = Array.from({ length: Number(process.env.BARE_HEAP_MB ?? 0) * 7_000 }, (_, i) => ({ i, name: `item ${i}`, next: [i] }));
const size = statSync(file).size;
createServer((req, res) => {
  const range = /^bytes=(\d+)-(\d+)$/.exec(req.headers.range ?? '');
  if (range) {
    const start = Number(range[1]);
    const end = Math.min(Number(range[2]), size - 1);
    res.writeHead(206, { 'content-type': 'video/mp2t', 'content-length': end - start + 1, 'content-range': `bytes ${start}-${end}/${size}`, 'accept-ranges': 'bytes' });
    createReadStream(file, { start, end }).pipe(res);
    return;
  }
  res.writeHead(200, { 'content-type': 'video/mp2t', 'content-length': size, 'accept-ranges': 'bytes' });
  createReadStream(file).pipe(res);
}).listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
// A clean exit on SIGTERM, so that a run under --cpu-prof writes its profile.
process.on('SIGTERM', () => process.exit(0));
