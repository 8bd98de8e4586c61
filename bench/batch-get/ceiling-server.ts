// The ceiling: a bare node:http server answering every POST with the same
// pre-serialized BatchGetSongs response. Nothing can be faster on this stack.
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';

const body = readFileSync(process.env.BODY_FILE!);
const port = Number(process.env.PORT);
createServer((req, res) => {
  req.resume();
  req.on('end', () => {
    res.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': body.length });
    res.end(body);
  });
}).listen(port, '127.0.0.1', () => process.stdout.write('ready\n'));
