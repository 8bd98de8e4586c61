// A demo server for the video player's browser tests, in this process so its
// clock can be moved: `maqam serve --demo` takes no clock, and the player must
// be seen outliving its stream URLs. The demo catalog (a small one), the demo
// user and client, the built demo app at /demo, and a short test clip
// packaged for a few demo titles by `addVideo` (what `maqam media add-video`
// runs). Run it by hand to try the player:
//   npx node packages/demo-app/test/video-server.ts   (then open the /demo it prints)
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { freePort } from '../../server/test/harness.ts';
import {
  addVideo, buildApp, createClientsService, createUsersService, generateDemoCatalog, importNdjsonFile, loadConfig, openStorage, prepareDatabase, seedDemoCatalog, type Storage,
} from '@maqam/server';
import { writeNdjson } from '../../server/test/fixtures.ts';

const REPO = resolve(import.meta.dirname, '../../..');
export const DEMO_APP_DIR = join(REPO, 'packages/demo-app/dist');

/** The test clip: 12 s of 720p (so two qualities, 480p and 720p), 440 Hz in Arabic, 880 Hz in English. */
export const CLIP_SECONDS = 12;
export const TONES = { ar: 440, en: 880 } as const;

/**
 * Subtitles of the clip, in SRT: each language's cues at the same times, and
 * forced English subtitles (a sign on screen), shown with the English audio
 * when no subtitles are chosen.
 */
export const CUES = {
  ar: [{ start: 1, end: 2.5, text: 'مرحبًا بكم في مقام' }, { start: 4.2, end: 6.4, text: 'الحكاية تبدأ الليلة' }],
  en: [{ start: 1, end: 2.5, text: 'Welcome to Maqam' }, { start: 4.2, end: 6.4, text: 'The story begins tonight' }],
  'en-forced': [{ start: 8, end: 9.5, text: 'CAIRO, 1968' }],
} as const;

/** The titles given the clip: the first two episodes of the Ramadan series (the second is the first's next), and a film. */
export const TITLES = {
  movie: 'movie-najmat-al-sabah',
  episode: 'episode-beit-al-karma-1-1',
  nextEpisode: 'episode-beit-al-karma-1-2',
} as const;

export interface VideoDemoServer {
  base: string;
  storage: Storage;
  /** Moves the server's clock (stream URLs, tokens) this far ahead of the real one. */
  moveClock(ms: number): void;
  close(): Promise<void>;
}

const srtTime = (seconds: number) => {
  const ms = Math.round(seconds * 1000);
  const pad = (n: number, width = 2) => String(n).padStart(width, '0');
  return `${pad(Math.floor(ms / 3_600_000))}:${pad(Math.floor(ms / 60_000) % 60)}:${pad(Math.floor(ms / 1000) % 60)},${pad(ms % 1000, 3)}`;
};

function ffmpeg(args: string[]) {
  const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', ...args], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`ffmpeg failed: ${made.stderr}`);
}

/** The clip's files: the picture with the Arabic tone, the English tone, and the SRT files. */
function makeClip(dir: string) {
  const video = join(dir, 'clip.mp4');
  ffmpeg(['-f', 'lavfi', '-i', `testsrc2=size=1280x720:rate=25:duration=${CLIP_SECONDS}`, '-f', 'lavfi', '-i', `sine=frequency=${TONES.ar}:sample_rate=48000:duration=${CLIP_SECONDS}`,
    '-c:v', 'libx264', '-preset', 'ultrafast', '-c:a', 'aac', '-shortest', video]);
  const english = join(dir, 'en.wav');
  ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=${TONES.en}:sample_rate=48000:duration=${CLIP_SECONDS}`, english]);
  const subtitles = (['ar', 'en', 'en-forced'] as const).map((name) => {
    const file = join(dir, `${name}.srt`);
    writeFileSync(file, CUES[name].map((cue, i) => `${i + 1}\n${srtTime(cue.start)} --> ${srtTime(cue.end)}\n${cue.text}\n`).join('\n'));
    return { language: name.slice(0, 2), file, forced: name.endsWith('forced') };
  });
  return { video, audio: [{ language: 'en', file: english }], subtitles };
}

/** The demo catalog (small), the demo user, and the clip packaged for the titles. */
async function prepare(storage: Storage, dir: string, media: string, songs: number) {
  await prepareDatabase(storage);
  await seedDemoCatalog(storage, { songs });
  await createUsersService(storage.db).create('demo', 'maqam-demo');
  // The clip stands for each title: the catalog's length is the clip's, so the 5 % and 90 % rules of continue watching apply to what plays.
  const lengthMs = CLIP_SECONDS * 1000;
  // Imported again as an operator would: the import writes a title's answer with its row.
  const clipped = [...generateDemoCatalog({ songs })]
    .filter((record) => (record.kind === 'movie' && record.id === TITLES.movie) || (record.kind === 'episode' && (record.id === TITLES.episode || record.id === TITLES.nextEpisode)))
    .map((record) => ({ ...record, durationMs: lengthMs, creditsStartMs: undefined }));
  if (clipped.length !== 3) throw new Error(`the demo catalog lacks the clip's titles (${clipped.length} of 3 found)`);
  const outcome = await importNdjsonFile(storage, writeNdjson(dir, 'clipped.ndjson', clipped));
  if (outcome.errors.length > 0) throw new Error(`re-import of the clip's titles failed: ${JSON.stringify(outcome.errors)}`);
  const clip = makeClip(dir);
  await addVideo(storage.db, media, { kind: 'episode', id: TITLES.episode }, clip.video, { audio: clip.audio, subtitles: clip.subtitles });
  // The same package serves the next episode and the film: one encode instead of three (each takes some 10 s of both cores).
  const packaged = await storage.db.selectFrom('video_packages').selectAll().where('title_kind', '=', 'episode').where('title_id', '=', TITLES.episode).executeTakeFirstOrThrow();
  await storage.db.insertInto('video_packages').values([
    { ...packaged, title_id: TITLES.nextEpisode },
    { ...packaged, title_kind: 'movie', title_id: TITLES.movie },
  ]).execute();
}

/**
 * The server, listening on `port` (a free one by default), on a folder of
 * its own that `close` removes. By hand, `dir` names a folder to keep: made
 * on the first run, used as it is on the next (the server reads the built
 * app once, at start: a restart shows a new build).
 */
export async function startVideoDemo(options: { port?: number; songs?: number; dir?: string } = {}): Promise<VideoDemoServer> {
  const dir = options.dir ?? mkdtempSync(join(tmpdir(), 'maqam-video-player-'));
  const media = join(dir, 'media');
  const made = existsSync(join(dir, 'maqam.db'));
  mkdirSync(media, { recursive: true });
  const databaseUrl = `sqlite:${join(dir, 'maqam.db')}`;
  const storage = openStorage(databaseUrl);
  const removeAll = () => (options.dir ? undefined : rmSync(dir, { recursive: true, force: true }));
  try {
    if (!made) await prepare(storage, dir, media, options.songs ?? 500);
    // The public URL is the issuer and the base of stream URLs: the port is known before listening.
    const port = options.port || (await freePort());
    const base = `http://127.0.0.1:${port}`;
    const clients = createClientsService(storage.db);
    if (!(await clients.find('maqam-demo'))) await clients.create({ clientId: 'maqam-demo', name: 'Maqam Demo', redirectUris: [`${base}/demo/callback`], scopes: ['read', 'stream', 'write'] });
    else await clients.addRedirectUri('maqam-demo', `${base}/demo/callback`);
    let offsetMs = 0;
    const config = loadConfig({ DATABASE_URL: databaseUrl, MAQAM_MEDIA_DIR: media, MAQAM_PUBLIC_URL: base, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn' });
    const app = await buildApp({
      config,
      storage,
      logger: false,
      clock: () => Date.now() + offsetMs,
      demo: {
        dir: DEMO_APP_DIR,
        // As `maqam serve --demo` says them: which films and episodes have video.
        settings: () => ({
          issuer: base, clientId: 'maqam-demo', mediaSongs: [], featuredArtists: [], videoTitles: [TITLES.episode, TITLES.nextEpisode, TITLES.movie],
        }),
      },
    });
    await app.listen({ port, host: '127.0.0.1' });
    return {
      base,
      storage,
      moveClock: (ms) => void (offsetMs += ms),
      async close() {
        await app.close();
        await storage.close();
        removeAll();
      },
    };
  } catch (error) {
    await storage.close();
    removeAll();
    throw error;
  }
}

if (import.meta.main) {
  const started = Date.now();
  const server = await startVideoDemo({ port: Number(process.env.PORT ?? 0), dir: process.env.VIDEO_DEMO_DIR });
  console.log(`ready in ${Date.now() - started} ms: ${server.base}/demo (demo / maqam-demo)`);
  // `kill -USR2 <pid>` moves the clock past a stream's viewing window (4 hours and 10 minutes).
  process.on('SIGUSR2', () => {
    server.moveClock(15_000_000);
    console.log('clock moved 15,000 s ahead');
  });
}
