// A stateful load generator for refresh rotation: each of CONNECTIONS workers
// owns its own families and always presents the latest refresh token of the
// family it picks, as a well-behaved client does. Prints JSON figures.
import { readFileSync } from 'node:fs';
import { Agent, request } from 'undici';

const [base, familiesFile, clientId] = [process.env.BASE!, process.env.FAMILIES!, process.env.CLIENT_ID!];
const connections = Number(process.env.CONNECTIONS ?? 32);
const seconds = Number(process.env.SECONDS ?? 10);
const tokens: string[] = JSON.parse(readFileSync(familiesFile, 'utf8'));
const agent = new Agent({ connections, pipelining: 1, keepAliveTimeout: 30_000 });
const latencies: number[] = [];
let ok = 0;
let failed = 0;
const deadline = performance.now() + seconds * 1000;

async function worker(index: number) {
  const mine = tokens.filter((_, i) => i % connections === index);
  for (let turn = 0; performance.now() < deadline; turn++) {
    const slot = turn % mine.length;
    const started = performance.now();
    const res = await request(`${base}/v1/auth/token/refresh`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: mine[slot], client_id: clientId }),
    });
    const body = (await res.body.json()) as { refresh_token?: string };
    latencies.push(performance.now() - started);
    if (res.statusCode === 200 && body.refresh_token) {
      mine[slot] = body.refresh_token;
      ok++;
    } else failed++;
  }
}

const started = performance.now();
await Promise.all(Array.from({ length: connections }, (_, i) => worker(i)));
const elapsed = (performance.now() - started) / 1000;
latencies.sort((a, b) => a - b);
const at = (q: number) => latencies[Math.min(latencies.length - 1, Math.floor(q * latencies.length))] ?? 0;
console.log(JSON.stringify({ refreshesPerSecond: ok / elapsed, ok, failed, p50Ms: at(0.5), p99Ms: at(0.99) }));
await agent.close();
