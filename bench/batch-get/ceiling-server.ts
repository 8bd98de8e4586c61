// The ceiling: a bare node:http server answering every POST with the same
// pre-serialized BatchGetSongs response. Nothing can be faster on this stack.
//
// BUSY_US makes it spin that long before each answer: the same server at a
// slower pace, whose cost beyond the spin shows what serving a request costs
// the kernel and Node when the load generator sleeps between answers.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.env.BODY_FILE!);
const port = Number(process.env.PORT);
const busyMs = Number(process.env.BUSY_US ?? 0) / 1000;
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    if (busyMs > 0) {
      const until = performance.now() + busyMs;
      while (performance.now() < until);
    }
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
