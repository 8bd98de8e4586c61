import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { ConfigError } from '@maqam/server';
import { importFile, migrate, seedDemo } from './commands/catalog.ts';
import { clients, users } from './commands/accounts.ts';
import { keys } from './commands/keys.ts';
import { ledger } from './commands/ledger.ts';
import { media } from './commands/media.ts';
import { serve } from './commands/serve.ts';
import { backup, restore } from './commands/backup.ts';
import { runUncapped, youngGenerationCapped } from './young-generation.ts';
import { configFrom } from './context.ts';
import { createOutput, UsageError, type TextSink } from './output.ts';

const HELP = `maqam: operate a Maqam server

Usage: maqam <command> [options]

Commands:
  serve [--demo]                      run the API server (--demo seeds an empty database)
  migrate                             apply database migrations
  seed-demo [--songs N] [--seed S]    write the generated demo catalog
  import FILE.ndjson [--batch-size N] import catalog records (idempotent)
  keys create --name N [--expires-in 90d]
  keys list [--owner U]               every key (or U's own), with its status and last use
  keys revoke KEY_ID
  keys rotate KEY_ID [--grace 24h]
  users create --username U (--password P | --password-stdin)
  users list | disable U | enable U | delete U --yes | set-password U (--password P | --password-stdin) | set-max-age-rating U RATING
  users grant U developer | revoke U developer
  users export U [--out FILE] [--locale TAG]   U's own data as one JSON document (what U downloads)
  clients create --name N --redirect-uri URI [--redirect-uri URI ...] [--scopes "read stream write"]
  clients list | delete CLIENT_ID | add-redirect-uri CLIENT_ID URI
  ledger [--by day|song|client] [--since 30d] [--limit N]   billed streams
  media add SONG_ID AUDIO_FILE        package audio as HLS at the qualities its source allows (ffmpeg)
  media add-video ID FILE [--audio LANG=FILE ...] [--subtitles LANG=FILE[:forced] ...]
                                      package a movie or an episode as encrypted HLS: the ladder, audio languages, subtitles
  media scan DIR [--concurrency N]    catalog and package a folder of tagged audio files
  backup [--to DIR]                   a checked copy of the SQLite database, taken while servers run
  restore FILE [--force]              a backup into DATABASE_URL's (empty) SQLite database, migrated forward

Options for every command:
  --json                 machine-readable output
  --database-url URL     overrides DATABASE_URL
  --port N, --host H     override PORT and HOST (serve)

Configuration comes from the environment, as for the server (see README).
maqam <command> --help explains a command; maqam --version prints the version.`;

/** What `maqam <command> --help` says: the command, its options, and what it touches. */
const COMMAND_HELP: Record<string, string> = {
  serve: `maqam serve [--demo] [--port N] [--host H]

Runs the API server on DATABASE_URL (migrating it first) until SIGTERM or SIGINT.
--demo   on an empty database, seeds the demo catalog (MAQAM_DEMO_SONGS songs, 50,000 by
         default), a demo user and client, and demo audio when ffmpeg is installed;
         serves the web app at /demo.`,
  migrate: `maqam migrate

Applies the pending database migrations to DATABASE_URL and lists them. Run once per
release when several nodes share a PostgreSQL database.`,
  'seed-demo': `maqam seed-demo [--songs N] [--seed S]

Writes the generated Arabic-first demo catalog (default 50,000 songs; the same for the
same seed) into DATABASE_URL, through the importer.`,
  import: `maqam import FILE.ndjson [--batch-size N]

Imports catalog records (artist, album, song, related, lyrics; one JSON object a line)
in batches of N (default 40,000). A batch with a bad line is not written and its lines
are reported; the others are. Upserts by id, so a corrected re-run converges.`,
  keys: `maqam keys create --name N [--expires-in 90d]   a new API key (printed once)
maqam keys list [--owner U]                     every key, without secrets, with its last use
                                                (to the minute; "never" if never used) and owner;
                                                --owner: only the keys developer U made
maqam keys revoke KEY_ID                        refused from the next request on
maqam keys rotate KEY_ID [--grace 24h]          a new key; the old one lives the grace period

Durations take their unit: s, m, h, d or w.`,
  users: `maqam users create --username U (--password P | --password-stdin)
maqam users list                        every user: created, active or disabled, live sign-ins
maqam users disable U                   U cannot sign in; every sign-in of U ends on the next request
maqam users enable U                    U can sign in again (ended sign-ins stay ended)
maqam users delete U --yes              deletes U for good: account, sign-ins, library, listening history, change feed
maqam users set-max-age-rating U AGE_RATING_13
                                        parental cap: titles rated above it (unrated counts as 18) are hidden from U; none clears it
maqam users set-password U (--password P | --password-stdin)
                                        a new password; every sign-in of U ends
maqam users grant U developer           U manages API keys of their own (DeveloperService, scope developer)
maqam users revoke U developer          takes the role back: U's keys keep working until revoked
maqam users export U [--out FILE] [--locale TAG]
                                        U's own data as one JSON document, the one GET /v1/users/me/export
                                        answers U (titles in TAG, else MAQAM_DEFAULT_LOCALE); --out: to FILE
                                        (default maqam-export-U-DATE.json in the current folder)

Usernames match in any case. --password-stdin keeps the password out of the shell history.`,
  clients: `maqam clients create --name N --redirect-uri URI [--redirect-uri URI ...] [--scopes "read stream write"]
maqam clients list
maqam clients delete CLIENT_ID                  removes it; everyone signed in through it is signed out
maqam clients add-redirect-uri CLIENT_ID URI    registers one more redirect URI

Registers a public OAuth client (PKCE, no secret). Redirect URIs are exact: https, http
on a loopback address, or a private-use scheme. Their https and loopback origins may call
the API from a browser (CORS).`,
  ledger: `maqam ledger [--by day|song|client] [--since 30d] [--limit N]

Billed streams (one per user, song and quality per billing window) over the last
--since (a duration: 7d, 24h...), grouped by UTC day (in date order) or by song or
client (most streamed first), with distinct listeners. --json for the records.`,
  media: `maqam media add SONG_ID AUDIO_FILE
maqam media add-video MOVIE_OR_EPISODE_ID FILE [--audio LANG=FILE ...] [--subtitles LANG=FILE[:forced] ...]
maqam media scan DIR [--concurrency N]

add: packages an audio file as HLS at the quality tiers its source allows (needs ffmpeg)
under MAQAM_MEDIA_DIR and records it for SONG_ID.

add-video: packages any video file ffmpeg reads for a movie or an episode (the id says which),
in one ffmpeg run, with its progress: H.264 at each step of the ladder (480p, 720p, 1080p,
2160p) up to the source's size, 6 s MPEG-TS segments starting with an IDR frame at the same
instants in every rendition, AES-128 with one key per title. The source's audio is the title's
original language (--audio LANG=FILE naming the source itself says otherwise); each --audio
adds a language from another file. Each --subtitles adds an SRT or WebVTT file (UTF-8 or
Windows-1256, detected), :forced for a forced track. Checked whole before it is recorded; a
title packaged again keeps playing its old package until the new one is recorded. --json
prints the package's record (never its key).

scan: the self-hosted music server workflow. Walks DIR for audio files, reads their tags
with ffprobe (title, artists, album, album artist, track and disc, date, genre, ISRC,
embedded cover, lyrics tags and .lrc files beside them), writes the artists, albums, songs
and lyrics (ids come from the tags, so a rescan updates instead of duplicating), keeps
album covers (embedded, or cover.jpg/folder.jpg) and shows them on the album's songs, and
packages each file, N at a time (default: the cores). A credit such as "A feat. B",
"A ft. B", "A & B" or "A و B" names two artists. Genres are written as the catalog spells
them ("Arabic Pop" as arabic-pop). A date of a year or a month alone ("2015") is dated its
first day (2015-01-01), since the catalog takes whole dates, and the scan says so. Files
already packaged from the same bytes are skipped, so an interrupted scan resumes. A file
that cannot be read is reported and the scan goes on; the exit code is 1 if any failed. It
prints the ids it wrote (albums, artists, songs by file); --json prints the summary with all
of them, every problem and every partial date.`,
  backup: `maqam backup [--to DIR]

SQLite: copies the database while servers keep serving and writing (SQLite's online backup,
from one instant: every write committed before it began), checks the copy with PRAGMA
integrity_check, and keeps it as DIR/maqam-<UTC time>.db (default MAQAM_BACKUP_DIR), with a
progress bar on a terminal. A running server takes them itself with MAQAM_BACKUP_SCHEDULE,
keeping MAQAM_BACKUP_COUNT. PostgreSQL: says what to use instead (pg_dump, or pg_basebackup
with WAL archiving) and exits 1. Media files are not in it: see the README's operations section.`,
  restore: `maqam restore FILE [--force]

SQLite: checks FILE (integrity, a Maqam database), migrates a copy of it forward if an older
release made it, and copies it into DATABASE_URL's database, then says how many users,
playlists and plays it restored. A database that holds data is refused unless --force
(which replaces it). Stop the servers first. PostgreSQL: says to use pg_restore.`,
};

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version;

/**
 * Where the CLI reads and writes: the process's own (main.ts), or a test's,
 * which runs commands in its own process (a Node process per command cost
 * more than most commands).
 */
export interface CliIo {
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly stdout: TextSink;
  readonly stderr: TextSink;
  /** What --password-stdin reads. */
  readonly stdin: AsyncIterable<Buffer | string>;
}

/**
 * Runs one maqam command and answers its exit code: 0, 1 when it failed
 * (said on stderr, with the error's causes), 2 for bad usage. `serve`
 * answers 0 once the server listens, and keeps it running.
 */
export async function runCli(argv: string[], io: CliIo): Promise<number> {
  try {
    return await main(argv, io);
  } catch (error) {
    if (error instanceof UsageError || error instanceof ConfigError || (error as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.stderr.write(`maqam: ${(error as Error).message}\n`);
      return 2;
    }
    io.stderr.write(`maqam: ${withCauses(error)}\n`);
    return 1;
  }
}

async function main(argv: string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      json: { type: 'boolean', default: false },
      demo: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h', default: false },
      version: { type: 'boolean', short: 'v', default: false },
      'database-url': { type: 'string' },
      port: { type: 'string' },
      host: { type: 'string' },
      songs: { type: 'string' },
      seed: { type: 'string' },
      'batch-size': { type: 'string' },
      name: { type: 'string' },
      'expires-in': { type: 'string' },
      grace: { type: 'string' },
      owner: { type: 'string' },
      username: { type: 'string' },
      password: { type: 'string' },
      'password-stdin': { type: 'boolean', default: false },
      yes: { type: 'boolean', default: false },
      'redirect-uri': { type: 'string', multiple: true },
      scopes: { type: 'string' },
      by: { type: 'string' },
      since: { type: 'string' },
      limit: { type: 'string' },
      concurrency: { type: 'string' },
      audio: { type: 'string', multiple: true },
      subtitles: { type: 'string', multiple: true },
      to: { type: 'string' },
      force: { type: 'boolean', default: false },
      out: { type: 'string' },
      locale: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  const out = createOutput(values.json, io.stdout, io.stderr);
  if (values.version) {
    io.stdout.write(`maqam ${VERSION}\n`);
    return 0;
  }
  const helpFor = command === 'help' ? rest[0] : values.help ? command : undefined;
  if (helpFor !== undefined && COMMAND_HELP[helpFor] !== undefined) {
    io.stdout.write(`${COMMAND_HELP[helpFor]}\n`);
    return 0;
  }
  if (values.help || command === undefined || command === 'help') {
    io.stdout.write(`${HELP}\n`);
    return command === undefined && !values.help ? 2 : 0;
  }
  // A load wants V8's young generation, not the server's (young-generation.ts).
  if ((command === 'import' || command === 'seed-demo') && youngGenerationCapped()) return runUncapped(argv);
  const config = configFrom(values, io.env);
  switch (command) {
    case 'serve':
      return serve(config, out, values);
    case 'migrate':
      return migrate(config, out);
    case 'seed-demo':
      return seedDemo(config, out, values);
    case 'import':
      return importFile(config, out, rest[0], values);
    case 'keys':
      return keys(config, out, rest, values);
    case 'users':
      return users(config, out, rest, values, io.stdin);
    case 'clients':
      return clients(config, out, rest, values);
    case 'media':
      return media(config, out, rest, values);
    case 'ledger':
      return ledger(config, out, values);
    case 'backup':
      return backup(config, out, values);
    case 'restore':
      return restore(config, out, rest[0], values);
    default:
      throw new UsageError(`unknown command "${command}"; see maqam help`);
  }
}

/**
 * An error's message followed by its causes': "the service is unavailable"
 * says little to an operator whose disk is full; "database or disk is full"
 * says what to do. A cause already quoted by a message before it is not said again.
 */
function withCauses(error: unknown): string {
  // A cause that says what the operator must do (a database to create) is said alone.
  for (let cause = error; cause instanceof Error; cause = cause.cause) if (cause.name === 'DatabaseMissingError') return cause.message;
  const messages: string[] = [];
  for (let cause = error; cause instanceof Error && messages.length < 5; cause = cause.cause) {
    if (!messages.some((message) => message.includes(cause.message))) messages.push(cause.message);
  }
  if (messages.length === 0) return String(error);
  return messages.length === 1 ? messages[0]! : `${messages[0]} (${messages.slice(1).join(': ')})`;
}
