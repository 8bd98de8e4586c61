import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { setFlagsFromString } from 'node:v8';
import { sql } from 'kysely';
import { SCOPE_NAMES } from '@maqam/contract';
import {
  addMedia, closeOnSignals, createClientsService, createUsersService, DEMO_FEATURED_MOVIES, DEMO_FEATURED_SHOWS, demoMusicDurations, KNOWN_ARTISTS,
  knownArtistId, knownSongs, packageDemoMusic, packageDemoVideo, seedDemoCatalog, seedDemoVideo, seedKnownArtists, startServer, type Config, type RunningServer,
  type Storage,
} from '@maqam/server';
import { reportRebuilds } from '../context.ts';
import type { Output } from '../output.ts';

/** The demo's sign-in: printed at start, meant for a machine of one's own. */
export const DEMO_USER = { username: 'demo', password: 'maqam-demo' };
export const DEMO_CLIENT_ID = 'maqam-demo';

/** Songs of the demo catalog (song-1 ... song-50000). */

/** Demo songs given playable media, when ffmpeg is there to make it. */
export const DEMO_MEDIA_SONGS = ['song-1', 'song-2', 'song-3'];

/** Length of each demo clip: the catalog gives these songs this duration and lyrics synced to it. */
const DEMO_CLIP_SECONDS = 24;

/** A few seconds of synthesized audio per demo song (a rising phrase on a different tonic each); needs ffmpeg. */
async function seedDemoMedia(storage: Storage, config: Config, out: Output): Promise<void> {
  const done = await storage.db.selectFrom('song_media').select('song_id').where('song_id', 'in', DEMO_MEDIA_SONGS).execute();
  const pending = DEMO_MEDIA_SONGS.filter((id) => !done.some((row) => row.song_id === id));
  if (pending.length === 0) return;
  out.info(`packaging demo media for ${pending.join(', ')} with ffmpeg...`);
  const dir = mkdtempSync(join(tmpdir(), 'maqam-demo-media-'));
  try {
    for (const [index, songId] of pending.entries()) {
      const tonic = 220 * 2 ** ((index * 3) / 12);
      const file = join(dir, `${songId}.wav`);
      // Commas inside a filtergraph expression must be escaped, or they split the filter.
      const expression = `0.25*sin(2*PI*t*${tonic.toFixed(2)}*pow(2\\,mod(floor(t*2)\\,8)/12))*(1-mod(t*2\\,1)*0.6)`;
      const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', `aevalsrc=${expression}:s=44100:d=${DEMO_CLIP_SECONDS}`, '-ac', '2', file]);
      if (made.status !== 0) throw new Error(`ffmpeg could not synthesize demo audio: ${made.stderr.toString().trim()}`);
      await addMedia(storage.db, config.mediaDirectory, songId, file);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/**
 * What the demo's pages are told (config.json, demo.routes.ts says what each
 * field means): it changes as the demo's music and video are packaged in the background.
 */
interface DemoState {
  /** Whether ffmpeg is there to make the demo's audio and video, asked once at start. */
  readonly hasFfmpeg: boolean;
  /** Whether espeak-ng is there to give the demo's clips their voices, asked once at start. */
  readonly hasEspeak: boolean;
  /** Songs with media, the only ones the demo offers to play. */
  readonly mediaSongs: string[];
  /** Films and episodes (their ids) with packaged video, the only ones the demo offers to play, in the order they became playable. */
  readonly videoTitles: string[];
  /** Artists the home view features: the most listened to, read from the catalog at start. */
  featuredArtists: string[];
}

/** On an empty database: the demo catalog (with the known artists), a demo user and a public demo client. */
async function seedDemo(storage: Storage, config: Config, out: Output, demo: DemoState): Promise<void> {
  const anyArtist = await storage.db.selectFrom('artists').select('id').limit(1).executeTakeFirst();
  // The known artists' songs last as long as the music generated for them.
  const clips = { ...Object.fromEntries(DEMO_MEDIA_SONGS.map((id) => [id, DEMO_CLIP_SECONDS * 1000])), ...demoMusicDurations() };
  if (!anyArtist) {
    out.info(`empty database: seeding the demo catalog (${config.demoSongs.toLocaleString('en')} songs)...`);
    await seedDemoCatalog(storage, { songs: config.demoSongs, clips, knownArtists: true });
  } else if (!(await storage.db.selectFrom('artists').select('id').where('id', '=', knownArtistId(KNOWN_ARTISTS[0]!.slug)).executeTakeFirst())) {
    // Seeded by a release before them.
    out.info(`adding ${KNOWN_ARTISTS.length} known artists to the demo catalog...`);
    await seedKnownArtists(storage, clips);
  }
  if (anyArtist && !(await storage.db.selectFrom('shows').select('id').limit(1).executeTakeFirst())) {
    // Seeded by a release before video.
    out.info('adding the demo video catalog (shows, seasons, episodes, films)...');
    await seedDemoVideo(storage, { songs: config.demoSongs, knownArtists: true });
  }
  const anyUser = await storage.db.selectFrom('users').select('id').limit(1).executeTakeFirst();
  if (!anyUser) await createUsersService(storage.db).create(DEMO_USER.username, DEMO_USER.password);
  // The demo user is a developer (contract section 16); a database whose first user is not the demo's has no demo user to make one.
  await createUsersService(storage.db).setRole(DEMO_USER.username, 'developer', true).catch(() => {});
  const clients = createClientsService(storage.db);
  const callback = `${config.publicUrl}/demo/callback`;
  // The Authorize button of /docs (swagger-ui) comes back to this page.
  const docsCallback = `${config.publicUrl}/docs/static/oauth2-redirect.html`;
  if (!(await clients.find(DEMO_CLIENT_ID))) {
    await clients.create({
      clientId: DEMO_CLIENT_ID,
      name: 'Maqam Demo',
      redirectUris: [callback, docsCallback, 'http://127.0.0.1:8765/callback'],
      scopes: [...SCOPE_NAMES],
    });
  } else {
    // Made by a release before the library: the demo now saves likes and reports plays.
    if (await clients.allowScope(DEMO_CLIENT_ID, 'write')) out.info('demo client: may now ask for the write scope');
    if (await clients.allowScope(DEMO_CLIENT_ID, 'developer')) out.info('demo client: may now ask for the developer scope');
    for (const uri of [callback, docsCallback]) {
      // Served on another port or public URL than before: the demo signs in there too.
      if (await clients.addRedirectUri(DEMO_CLIENT_ID, uri)) out.info(`demo client: added redirect URI ${uri}`);
    }
  }
  demo.featuredArtists = await findFeaturedArtists(storage);
  try {
    if (demo.hasFfmpeg && config.demoMusicSongs > 0) {
      await seedDemoMedia(storage, config, out);
      demo.mediaSongs.push(...DEMO_MEDIA_SONGS);
    }
  } catch (error) {
    // Demo media is a nicety: the server starts without it.
    out.info(`demo media skipped: ${(error as Error).message}`);
  }
}

/**
 * The known artists' music, generated and packaged after the server has
 * started (a song takes a few seconds), each song playable as soon as it is
 * packaged; progress goes to the log.
 */
function packageMusicInBackground(server: RunningServer, config: Config, out: Output, demo: DemoState): void {
  const stopping = new AbortController();
  // The HTTP server closes before the database does: a song being packaged then is abandoned, not reported as failed.
  server.app.server.once('close', () => stopping.abort());
  out.info("demo music: making the known artists' songs playable in the background (music in the maqamat, composed here); each plays once packaged");
  packageDemoMusic(server.storage, config.mediaDirectory, (songId, ready, total) => {
    demo.mediaSongs.push(songId);
    if (ready === total) out.info(`demo music: all ${total} songs of the known artists are playable`);
    else if (ready % 10 === 0) out.info(`demo music: ${ready} of ${total} songs playable`);
  }, { signal: stopping.signal, limit: config.demoMusicSongs }).catch((error: unknown) => {
    if (!stopping.signal.aborted) out.info(`demo music stopped: ${(error as Error).message}`);
  });
}

/**
 * How many of the demo's video titles get clips: MAQAM_DEMO_MUSIC's share
 * of the known artists' songs, of the titles, rounded up. All of them by
 * default; none with MAQAM_DEMO_MUSIC=0; one for the two songs the demo
 * app's browser test asks for. (A setting of its own would live in
 * config.ts.)
 */
export function demoVideoLimit(config: Pick<Config, 'demoMusicSongs'>): number {
  const titles = DEMO_FEATURED_SHOWS.length + DEMO_FEATURED_MOVIES.length;
  return Math.ceil(titles * Math.min(1, config.demoMusicSongs / knownSongs().length));
}

/**
 * Clips for the Watch home's titles (the first episode of each featured
 * show, then the featured films; demo-video-media.ts), made and packaged
 * after the server has started, one at a time beside the music, each
 * playable as soon as it is packaged. A clip takes some 25 s of CPU (30 s
 * to a minute of 720p, encoded twice), made at a lower priority than the
 * server's; the fifteen, six minutes of CPU.
 */
function packageVideoInBackground(server: RunningServer, config: Config, out: Output, demo: DemoState): void {
  const stopping = new AbortController();
  server.app.server.once('close', () => stopping.abort());
  out.info('demo video: making clips of the Watch home\'s titles in the background (720p, Arabic and English voices and subtitles); each plays once packaged');
  packageDemoVideo(server.storage, config.mediaDirectory, (title, ready, total) => {
    demo.videoTitles.push(title.id);
    out.info(ready === total ? `demo video: all ${total} titles are playable` : `demo video: ${title.id} is playable (${ready} of ${total})`);
  }, { signal: stopping.signal, limit: demoVideoLimit(config), background: true }).catch((error: unknown) => {
    if (!stopping.signal.aborted) out.info(`demo video stopped: ${(error as Error).message}`);
  });
}

async function findFeaturedArtists(storage: Storage): Promise<string[]> {
  const rows = await storage.db
    .selectFrom('artists')
    .select('id')
    .where('withdrawn', '=', 0)
    .orderBy(sql`cast(monthly_listeners as bigint)`, 'desc')
    .orderBy('id')
    .limit(12)
    .execute();
  return rows.map((row) => row.id);
}

/** The built demo web app (npm run build:demo), served at /demo. */
const DEMO_APP_DIR = join(dirname(fileURLToPath(import.meta.resolve('@maqam/demo-app/package.json'))), 'dist');

export async function serve(given: Config, out: Output, flags: { demo?: boolean }): Promise<number> {
  // What a loaded server promotes to V8's old generation is mostly requests that were in flight at a
  // minor collection, dead soon after. V8 lets the old generation grow to up to four times what survived
  // the last full collection before it collects again; a server keeps that garbage as resident memory.
  // 20% more: bench/batch-get/memory.ts (1M songs, fresh Zipf, 30 s) measured RSS 345 MB against 368 to
  // 372, with 7 or 8 full collections in a run (66 to 82 ms in all) and the same CPU a request. Set here,
  // not in the shebang: `maqam import` keeps a large heap alive and took 26.5 s instead of 20.9 with it.
  setFlagsFromString('--heap-growing-percent=20');
  // The demo signs /docs in with the demo client unless another is configured.
  const config = flags.demo && given.docsClientId === '' ? { ...given, docsClientId: DEMO_CLIENT_ID } : given;
  const demo: DemoState = {
    hasFfmpeg: flags.demo === true && spawnSync('ffmpeg', ['-version']).status === 0,
    hasEspeak: flags.demo === true && spawnSync('espeak-ng', ['--version']).status === 0,
    mediaSongs: [], videoTitles: [], featuredArtists: [],
  };
  const server = await startServer(config, {
    onRebuildProgress: reportRebuilds(out),
    beforeListen: flags.demo ? (storage) => seedDemo(storage, config, out, demo) : undefined,
    demo: flags.demo
      ? {
          dir: DEMO_APP_DIR,
          settings: () => ({
            issuer: config.publicUrl,
            clientId: DEMO_CLIENT_ID,
            mediaSongs: demo.mediaSongs,
            videoTitles: demo.videoTitles,
            featuredArtists: demo.featuredArtists,
            featuredShows: DEMO_FEATURED_SHOWS,
            featuredMovies: DEMO_FEATURED_MOVIES,
          }),
        }
      : undefined,
  });
  closeOnSignals(server);
  if (flags.demo) {
    const { hasFfmpeg, hasEspeak } = demo;
    if (hasFfmpeg && config.demoMusicSongs > 0) packageMusicInBackground(server, config, out, demo);
    if (hasFfmpeg && hasEspeak && config.demoMusicSongs > 0) packageVideoInBackground(server, config, out, demo);
    const base = config.publicUrl;
    const verifier = randomBytes(32).toString('base64url');
    const challenge = createHash('sha256').update(verifier).digest('base64url');
    const redirect = 'http://127.0.0.1:8765/callback';
    const authorize = `${base}/v1/auth/authorize?${new URLSearchParams({
      response_type: 'code', client_id: DEMO_CLIENT_ID, redirect_uri: redirect, scope: 'read stream write', state: 'demo',
      code_challenge: challenge, code_challenge_method: 'S256',
    })}`;
    out.info(
      [
        '',
        `Maqam is serving the demo catalog at ${base}`,
        `  Demo web app:   ${base}/demo   (sign in as "${DEMO_USER.username}" / "${DEMO_USER.password}")`,
        `  API reference:  ${base}/docs`,
        '',
        'With an API key:',
        '  npx maqam keys create --name demo',
        `  curl -s ${base}/v1/music/songs:batchGet -H "x-api-key: <key>" \\`,
        `    -H 'content-type: application/json' -H 'accept-language: en' \\`,
        `    -d '{"songIdList":[{"value":"song-1"},{"value":"song-2"}]}'`,
        `  curl -s '${base}/v1/music/artists/artist-1/related?page_size=5' -H "x-api-key: <key>"`,
        '',
        `With OAuth (user "${DEMO_USER.username}", password "${DEMO_USER.password}", client "${DEMO_CLIENT_ID}"):`,
        `  1. open ${authorize}`,
        `  2. sign in; the browser lands on ${redirect}?code=...`,
        `  3. curl -s ${base}/v1/auth/token -H 'content-type: application/json' -d '{"grant_type":"authorization_code",` +
          `"client_id":"${DEMO_CLIENT_ID}","redirect_uri":"${redirect}","code_verifier":"${verifier}","code":"<code>"}'`,
        '',
        hasFfmpeg && config.demoMusicSongs > 0
          ? `Streams: ${DEMO_MEDIA_SONGS.join(', ')} and the known artists' songs have media. With the access token:\n` +
            `  curl -s ${base}/v1/streaming/music -H "authorization: Bearer <access_token>" -H 'content-type: application/json' -d '{"songId":{"value":"song-1"}}'\n` +
            '  and play the manifestUrl it answers (ffplay, VLC, Safari).\n' +
            (hasEspeak
              ? 'Video: the featured shows\' first episodes and the featured films get clips as they are packaged (/demo/config.json lists them), this one first:\n' +
                `  curl -s ${base}/v1/streaming/video -H "authorization: Bearer <access_token>" -H 'content-type: application/json' -d '{"episodeId":{"value":"episode-beit-al-karma-1-1"}}'`
              : 'Video: no demo clips, because espeak-ng is not installed (Debian: apt-get install espeak-ng), then restart.')
          : hasFfmpeg
            ? 'Streams: no demo media, as MAQAM_DEMO_MUSIC=0 asks.'
            : 'Streams: no demo media, because ffmpeg is not installed (Debian: apt-get install ffmpeg), then restart.',
        '',
      ].join('\n'),
    );
  }
  return 0;
}
