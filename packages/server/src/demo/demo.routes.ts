import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { extname, join } from 'node:path';
import type { FastifyInstance, FastifyReply } from 'fastify';
import { contentEtag } from '../http/etag.ts';

/**
 * /demo/config.json: what the demo's page needs to sign in and what the
 * demo offers. The lists that grow (`mediaSongs`, `videoTitles`) grow while
 * the server packages the demo's media in the background, so the page reads
 * them again to show what has become playable. Names are stable: the demo
 * app (packages/demo-app) reads them.
 */
export interface DemoConfig {
  /** The server's public URL, the OAuth issuer. */
  issuer: string;
  /** The demo's public OAuth client. */
  clientId: string;
  /** Songs with media: the only ones the demo offers to play. */
  mediaSongs: readonly string[];
  /**
   * Films and episodes with packaged video (their ids: `movie-...`,
   * `episode-...`), in the order they became playable: the only ones the
   * demo offers to play. Empty while none is ready, and when the server
   * makes no demo video (no ffmpeg or espeak-ng, or MAQAM_DEMO_MUSIC=0).
   */
  videoTitles: readonly string[];
  /** Artists the music home features: the most listened to. */
  featuredArtists: readonly string[];
  /** Shows the Watch home features, in its order: the first is its spotlight; each one's first episode gets video first. */
  featuredShows: readonly string[];
  /** Films the Watch home features, in its order; each gets video after the shows' first episodes. */
  featuredMovies: readonly string[];
}

/** The demo web app: a built folder (packages/demo-app/dist) and the settings its page reads. */
export interface DemoApp {
  /** index.html and assets/ inside. */
  dir: string;
  /** Served as /demo/config.json (a test's server may give only some fields), read at each request. */
  settings: () => Partial<DemoConfig>;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
};

// The page runs only its own scripts, talks only to this origin, and plays
// media through MSE (blob: URLs); hls.js starts its worker from a blob and gives
// each subtitle track an empty `data:,WEBVTT` source.
const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "media-src 'self' blob: data:",
  "connect-src 'self'",
  "worker-src 'self' blob:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

interface Asset {
  body: Buffer;
  type: string;
  etag: string;
}

function load(path: string): Asset {
  const body = readFileSync(path);
  return { body, type: TYPES[extname(path)] ?? 'application/octet-stream', etag: contentEtag(body) };
}

/**
 * Serves the demo app at /demo (and /demo/callback, its redirect URI). Files
 * are read once at start and served from memory by exact name, so no request
 * path ever reaches the file system. Without a build, /demo says how to make one.
 */
export async function demoRoutes(app: FastifyInstance, demo: DemoApp): Promise<void> {
  const built = existsSync(join(demo.dir, 'index.html'));
  const assets = new Map<string, Asset>();
  if (built && existsSync(join(demo.dir, 'assets'))) {
    for (const name of readdirSync(join(demo.dir, 'assets'))) assets.set(name, load(join(demo.dir, 'assets', name)));
  }
  const page = built ? load(join(demo.dir, 'index.html')) : undefined;

  const send = (reply: FastifyReply, asset: Asset, cache: string, ifNoneMatch: string | undefined) => {
    reply.header('content-type', asset.type).header('etag', asset.etag).header('cache-control', cache);
    reply.header('content-security-policy', CSP).header('x-content-type-options', 'nosniff').header('referrer-policy', 'no-referrer');
    if (ifNoneMatch === asset.etag) return reply.code(304).send();
    return reply.send(asset.body);
  };

  const index = async (request: { headers: { 'if-none-match'?: string | undefined } }, reply: FastifyReply) => {
    if (!page) {
      return reply.code(503).header('content-type', 'text/plain; charset=utf-8')
        .send('The demo app is not built. Run `npm run build:demo` (npm start does it), then restart.\n');
    }
    return send(reply, page, 'no-cache', request.headers['if-none-match']);
  };
  const hide = { schema: { hide: true } };
  app.get('/demo', hide, index);
  app.get('/demo/', hide, index);
  app.get('/demo/callback', hide, index);
  app.get('/demo/config.json', hide, async (_request, reply) =>
    // Read at each request: what the demo offers to play grows as its music is packaged.
    reply.header('content-type', 'application/json; charset=utf-8').header('cache-control', 'no-cache').send(JSON.stringify(demo.settings())));
  app.get<{ Params: { name: string } }>('/demo/assets/:name', hide, async (request, reply) => {
    const asset = assets.get(request.params.name);
    if (!asset) return reply.code(404).header('content-type', 'text/plain; charset=utf-8').send('Not found\n');
    // Names of built chunks carry a hash; app.js and app.css do not, so they are revalidated.
    const immutable = /-[A-Z0-9]{8,}\.js$/.test(request.params.name);
    return send(reply, asset, immutable ? 'public, max-age=31536000, immutable' : 'no-cache', request.headers['if-none-match']);
  });
}
