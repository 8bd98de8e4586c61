/**
 * Every setting of the server and CLI: its environment variable, default and
 * meaning, in one place. The README's configuration table is checked against
 * this list by a test.
 */

export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  redisUrl: string | undefined;
  secret: string | undefined;
  publicUrl: string;
  /** Origins trusted for CORS besides the registered clients' ('*' trusts every origin). */
  corsOrigins: readonly string[];
  /** The public client the Authorize button of /docs signs in with ('' leaves the field for the reader to fill). */
  docsClientId: string;
  defaultLocale: string;
  logLevel: string;
  accessTokenTtlSeconds: number;
  codeTtlSeconds: number;
  rateLimitPerMinute: number;
  songCacheMegabytes: number;
  pageTokenTtlSeconds: number;
  mediaDirectory: string;
  /** How long the manifest URL AcquireMusicStream answers may first be fetched (expiresInSeconds), and how long one acquisition is billed for. */
  streamUrlTtlSeconds: number;
  /** Added to acquisition + the song's duration: until then every URL the manifest leads to stays valid (pauses). */
  streamGraceSeconds: number;
  /** How long a user's plays are kept (GetHistory), in days. */
  historyDays: number;
  /** How many entries one playlist may hold. */
  playlistMaxItems: number;
  databaseTimeoutMs: number;
  /** PostgreSQL: statements of one to this many parameters are prepared once per connection; 0, none. */
  postgresPreparedParameters: number;
  /** HTTP: how long a client has to send a whole request, headers and body. */
  requestTimeoutMs: number;
  /** HTTP: how long a client has to send a request's headers (at most requestTimeoutMs). */
  headersTimeoutMs: number;
  /** HTTP: how long a kept-alive connection may sit idle between requests. */
  keepAliveTimeoutMs: number;
  /** `maqam serve --demo`: the songs seeded into an empty database. */
  demoSongs: number;
  demoMusicSongs: number;
  /** Where `maqam backup` and the scheduled backups write SQLite backups. */
  backupDirectory: string;
  /** How often a running server backs its SQLite database up, in ms; undefined: never (MAQAM_BACKUP_SCHEDULE). */
  backupIntervalMs: number | undefined;
  /** How many scheduled backups are kept: older ones are deleted after each new one. */
  backupCount: number;
}

interface Setting<K extends keyof Config> {
  readonly key: K;
  readonly env: string;
  /** What the README shows as the default. */
  readonly shownDefault: string;
  readonly description: string;
  parse(raw: string | undefined, partial: Partial<Config>): Config[K];
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

function integer(env: string, fallback: number, min: number, max: number) {
  return (raw: string | undefined): number => {
    if (raw === undefined || raw === '') return fallback;
    const value = Number(raw);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw new ConfigError(`${env} must be an integer from ${min} to ${max}, got "${raw}"`);
    }
    return value;
  };
}

const INTERVAL_UNITS_MS: Record<string, number> = { m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

/** An interval such as 30m, 6h, 1d or 1w (at least a minute); empty: none. */
function interval(env: string) {
  return (raw: string | undefined): number | undefined => {
    if (raw === undefined || raw.trim() === '') return undefined;
    const match = /^(\d+)([mhdw])$/.exec(raw.trim());
    if (!match || Number(match[1]) < 1) throw new ConfigError(`${env} must be an interval with its unit, such as 30m, 6h, 1d or 1w; got "${raw}"`);
    return Number(match[1]) * INTERVAL_UNITS_MS[match[2]!]!;
  };
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'];

export const SETTINGS = [
  {
    key: 'port',
    env: 'PORT',
    shownDefault: '8080',
    description: 'TCP port the server listens on (0 picks a free one).',
    parse: integer('PORT', 8080, 0, 65535),
  } satisfies Setting<'port'>,
  {
    key: 'host',
    env: 'HOST',
    shownDefault: '127.0.0.1',
    description: 'Interface the server listens on; 0.0.0.0 for all.',
    parse: (raw) => raw || '127.0.0.1',
  } satisfies Setting<'host'>,
  {
    key: 'databaseUrl',
    env: 'DATABASE_URL',
    shownDefault: 'sqlite:./data/maqam.db',
    description: 'sqlite:<path> for the embedded database, or postgres://... for scale-out.',
    parse: (raw) => {
      const url = raw || 'sqlite:./data/maqam.db';
      if (!/^(sqlite:|postgres(ql)?:\/\/)/.test(url)) {
        throw new ConfigError('DATABASE_URL must start with sqlite: or postgres://');
      }
      return url;
    },
  } satisfies Setting<'databaseUrl'>,
  {
    key: 'redisUrl',
    env: 'REDIS_URL',
    shownDefault: '(none)',
    description: 'Optional redis://...: rate-limit counts shared by every node (without it each node counts alone); word of imports, so every node drops what it rendered at once (without it, within a second, at its next poll); on PostgreSQL also the shared write version that lets nodes check credentials from memory between writes (give it to every node and to the CLI).',
    parse: (raw) => raw || undefined,
  } satisfies Setting<'redisUrl'>,
  {
    key: 'secret',
    env: 'MAQAM_SECRET',
    shownDefault: '(generated)',
    description: 'Signing key for page tokens and URLs; generated and stored in the database on first start if absent.',
    parse: (raw) => {
      if (raw && raw.length < 32) throw new ConfigError('MAQAM_SECRET must be at least 32 characters');
      return raw || undefined;
    },
  } satisfies Setting<'secret'>,
  {
    key: 'publicUrl',
    env: 'MAQAM_PUBLIC_URL',
    shownDefault: 'http://HOST:PORT',
    description: 'The issuer and the base of every absolute URL the server makes.',
    parse: (raw, partial) => (raw || `http://${partial.host}:${partial.port}`).replace(/\/+$/, ''),
  } satisfies Setting<'publicUrl'>,
  {
    key: 'corsOrigins',
    env: 'MAQAM_CORS_ORIGINS',
    shownDefault: '(none)',
    description:
      "Comma-separated origins browser apps may call the API from (CORS), besides the origins of registered clients' redirect URIs; * trusts every origin.",
    parse: (raw) => {
      const origins = (raw ?? '').split(',').map((origin) => origin.trim()).filter(Boolean);
      for (const origin of origins) {
        if (origin === '*') continue;
        let parsed: URL;
        try {
          parsed = new URL(origin);
        } catch {
          throw new ConfigError(`MAQAM_CORS_ORIGINS: "${origin}" is not an origin such as https://app.example`);
        }
        if (parsed.origin !== origin.replace(/\/+$/, '')) throw new ConfigError(`MAQAM_CORS_ORIGINS: "${origin}" is not an origin such as https://app.example`);
      }
      return origins.map((origin) => origin.replace(/\/+$/, ''));
    },
  } satisfies Setting<'corsOrigins'>,
  {
    key: 'docsClientId',
    env: 'MAQAM_DOCS_CLIENT_ID',
    shownDefault: '(none; maqam-demo with serve --demo)',
    description: "The OAuth client the Authorize button of /docs signs in with (PKCE); register `PUBLIC_URL/docs/static/oauth2-redirect.html` as one of its redirect URIs.",
    parse: (raw) => (raw ?? '').trim(),
  } satisfies Setting<'docsClientId'>,
  {
    key: 'defaultLocale',
    env: 'MAQAM_DEFAULT_LOCALE',
    shownDefault: 'ar',
    description: 'Locale used when Accept-Language names none the catalog has.',
    parse: (raw) => {
      const tag = (raw || 'ar').toLowerCase();
      if (!/^[a-z]{1,8}(-[a-z0-9]{1,8})*$/.test(tag)) throw new ConfigError('MAQAM_DEFAULT_LOCALE must be a BCP 47 tag');
      return tag;
    },
  } satisfies Setting<'defaultLocale'>,
  {
    key: 'logLevel',
    env: 'LOG_LEVEL',
    shownDefault: 'info',
    description: `One of ${LOG_LEVELS.join(', ')}.`,
    parse: (raw) => {
      const level = raw || 'info';
      if (!LOG_LEVELS.includes(level)) throw new ConfigError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
      return level;
    },
  } satisfies Setting<'logLevel'>,
  {
    key: 'accessTokenTtlSeconds',
    env: 'MAQAM_ACCESS_TOKEN_TTL',
    shownDefault: '3600',
    description: 'Access-token lifetime in seconds (OAuth server).',
    parse: integer('MAQAM_ACCESS_TOKEN_TTL', 3600, 1, 86400),
  } satisfies Setting<'accessTokenTtlSeconds'>,
  {
    key: 'codeTtlSeconds',
    env: 'MAQAM_CODE_TTL',
    shownDefault: '60',
    description: 'Authorization-code lifetime in seconds (OAuth server).',
    parse: integer('MAQAM_CODE_TTL', 60, 1, 600),
  } satisfies Setting<'codeTtlSeconds'>,
  {
    key: 'rateLimitPerMinute',
    env: 'MAQAM_RATE_LIMIT',
    shownDefault: '600',
    description: 'Requests per minute per credential; 0 turns limits off.',
    parse: integer('MAQAM_RATE_LIMIT', 600, 0, 10_000_000),
  } satisfies Setting<'rateLimitPerMinute'>,
  {
    key: 'songCacheMegabytes',
    env: 'MAQAM_SONG_CACHE_MB',
    shownDefault: '64 on SQLite, else 128',
    description: 'Memory for serialized songs (all locales together); 0 disables the cache.',
    // SQLite: the server and its database share one machine's memory, and the 1M catalog's RSS target is 300 MB;
    // half the cache costs little CPU there (bench/README.md at 9b0c7f5). PostgreSQL nodes keep more, as a miss is a round trip.
    parse: (raw, partial) => integer('MAQAM_SONG_CACHE_MB', partial.databaseUrl?.startsWith('sqlite:') ? 64 : 128, 0, 4095)(raw),
  } satisfies Setting<'songCacheMegabytes'>,
  {
    key: 'pageTokenTtlSeconds',
    env: 'MAQAM_PAGE_TOKEN_TTL',
    shownDefault: '86400',
    description: 'How long a nextPageToken stays valid, in seconds.',
    parse: integer('MAQAM_PAGE_TOKEN_TTL', 86400, 1, 31_536_000),
  } satisfies Setting<'pageTokenTtlSeconds'>,
  {
    key: 'mediaDirectory',
    env: 'MAQAM_MEDIA_DIR',
    shownDefault: './data/media',
    description: 'Where `maqam media add` writes HLS audio and the server reads it.',
    parse: (raw) => raw || './data/media',
  } satisfies Setting<'mediaDirectory'>,
  {
    key: 'streamUrlTtlSeconds',
    env: 'MAQAM_STREAM_URL_TTL',
    shownDefault: '300',
    description:
      'How long the signed manifest URL AcquireMusicStream answers may first be fetched, in seconds (its `expiresInSeconds`); acquiring the same song and quality again within it is not billed again. What the manifest leads to lasts longer: see MAQAM_STREAM_GRACE.',
    parse: integer('MAQAM_STREAM_URL_TTL', 300, 1, 86400),
  } satisfies Setting<'streamUrlTtlSeconds'>,
  {
    key: 'streamGraceSeconds',
    env: 'MAQAM_STREAM_GRACE',
    shownDefault: '14400',
    description:
      "Seconds of pause a stream allows: every URL a manifest leads to (segments) is signed until acquisition + the song's duration + this, so a long song or a film plays to its end and seeks anywhere without acquiring again.",
    parse: integer('MAQAM_STREAM_GRACE', 14_400, 0, 604_800),
  } satisfies Setting<'streamGraceSeconds'>,
  {
    key: 'historyDays',
    env: 'MAQAM_HISTORY_DAYS',
    shownDefault: '365',
    description: 'How long a user\'s listening history is kept, in days: older plays are no longer listed and are deleted as the user reports more.',
    parse: integer('MAQAM_HISTORY_DAYS', 365, 1, 36_500),
  } satisfies Setting<'historyDays'>,
  {
    key: 'playlistMaxItems',
    env: 'MAQAM_PLAYLIST_MAX_ITEMS',
    shownDefault: '10000',
    description: 'How many entries one playlist may hold; a write past it is a 400 that changes nothing.',
    parse: integer('MAQAM_PLAYLIST_MAX_ITEMS', 10_000, 1, 100_000),
  } satisfies Setting<'playlistMaxItems'>,
  {
    key: 'databaseTimeoutMs',
    env: 'MAQAM_DB_TIMEOUT_MS',
    shownDefault: '2000',
    description:
      'How long the server waits to connect to the database, for a pooled connection, or for one statement (SQLite: for a write lock) before the request answers 503.',
    parse: integer('MAQAM_DB_TIMEOUT_MS', 2000, 100, 600_000),
  } satisfies Setting<'databaseTimeoutMs'>,
  {
    key: 'postgresPreparedParameters',
    env: 'MAQAM_PG_PREPARED_PARAMETERS',
    shownDefault: '64',
    description:
      'PostgreSQL: statements of one to this many parameters are prepared once on each of the server\'s connections, so they are parsed and planned once. 0 prepares none: for a connection pooler in transaction mode that keeps no prepared statements (PgBouncer before 1.21, or without max_prepared_statements).',
    parse: integer('MAQAM_PG_PREPARED_PARAMETERS', 64, 0, 10_000),
  } satisfies Setting<'postgresPreparedParameters'>,
  {
    key: 'requestTimeoutMs',
    env: 'MAQAM_REQUEST_TIMEOUT_MS',
    shownDefault: '30000',
    description:
      'How long a client has to send a whole request, headers and body; one still incomplete then (a stalled body holds a connection and its memory) is answered 400 and its connection closed. A 1 MiB body needs 35 KB/s.',
    parse: integer('MAQAM_REQUEST_TIMEOUT_MS', 30_000, 100, 600_000),
  } satisfies Setting<'requestTimeoutMs'>,
  {
    key: 'headersTimeoutMs',
    env: 'MAQAM_HEADERS_TIMEOUT_MS',
    shownDefault: '10000',
    description: "How long a client has to send a request's headers, from its connection or its previous request (at most MAQAM_REQUEST_TIMEOUT_MS).",
    parse: (raw, partial) => {
      const value = integer('MAQAM_HEADERS_TIMEOUT_MS', Math.min(10_000, partial.requestTimeoutMs ?? 10_000), 100, 600_000)(raw);
      if (value > (partial.requestTimeoutMs ?? Infinity)) throw new ConfigError(`MAQAM_HEADERS_TIMEOUT_MS (${value}) must be at most MAQAM_REQUEST_TIMEOUT_MS (${partial.requestTimeoutMs})`);
      return value;
    },
  } satisfies Setting<'headersTimeoutMs'>,
  {
    key: 'keepAliveTimeoutMs',
    env: 'MAQAM_KEEP_ALIVE_TIMEOUT_MS',
    shownDefault: '72000',
    description:
      'How long a kept-alive connection may sit idle between requests before the server closes it. Longer than the usual load balancer idle timeout (60 s), so the balancer, not the server, closes an idle connection and never sends a request down one being closed.',
    parse: integer('MAQAM_KEEP_ALIVE_TIMEOUT_MS', 72_000, 100, 3_600_000),
  } satisfies Setting<'keepAliveTimeoutMs'>,
  {
    key: 'demoSongs',
    env: 'MAQAM_DEMO_SONGS',
    shownDefault: '50000',
    description: '`maqam serve --demo`: how many songs of the generated demo catalog it seeds into an empty database (artists and albums in proportion).',
    parse: integer('MAQAM_DEMO_SONGS', 50_000, 100, 1_000_000),
  } satisfies Setting<'demoSongs'>,
  {
    key: 'demoMusicSongs',
    env: 'MAQAM_DEMO_MUSIC',
    shownDefault: '1000',
    description: "`maqam serve --demo`: how many of the known artists' songs get generated music in the background (all of them by default; each takes a few seconds of CPU); 0 makes no demo audio at all, the three clips with synced lyrics included.",
    parse: integer('MAQAM_DEMO_MUSIC', 1000, 0, 1000),
  } satisfies Setting<'demoMusicSongs'>,
  {
    key: 'backupDirectory',
    env: 'MAQAM_BACKUP_DIR',
    shownDefault: './data/backups',
    description: 'SQLite: where `maqam backup` (without --to) and the scheduled backups write `maqam-<UTC time>.db` files.',
    parse: (raw) => raw || './data/backups',
  } satisfies Setting<'backupDirectory'>,
  {
    key: 'backupIntervalMs',
    env: 'MAQAM_BACKUP_SCHEDULE',
    shownDefault: '(none)',
    description:
      'SQLite: how often a running server backs the database up while it serves, as an interval with its unit (30m, 6h, 1d, 1w); counted from the last scheduled backup, which the database remembers across restarts. Of several servers on one database, one takes each backup. Not for PostgreSQL (the README says what to use).',
    parse: interval('MAQAM_BACKUP_SCHEDULE'),
  } satisfies Setting<'backupIntervalMs'>,
  {
    key: 'backupCount',
    env: 'MAQAM_BACKUP_COUNT',
    shownDefault: '7',
    description: 'How many backups MAQAM_BACKUP_DIR keeps: after each scheduled backup the older ones are deleted.',
    parse: integer('MAQAM_BACKUP_COUNT', 7, 1, 10_000),
  } satisfies Setting<'backupCount'>,
] as const;

/** Reads every setting from `env`; `overrides` (CLI flags) win over the environment. */
export function loadConfig(
  env: Record<string, string | undefined> = process.env,
  overrides: Partial<Record<string, string>> = {},
): Config {
  const config: Partial<Config> = {};
  for (const setting of SETTINGS) {
    const raw = overrides[setting.env] ?? env[setting.env];
    (config as Record<string, unknown>)[setting.key] = setting.parse(raw, config);
  }
  return config as Config;
}

/** The README's configuration table, made from SETTINGS (a test keeps the README equal to it). */
export function configTableMarkdown(): string {
  const rows = SETTINGS.map((s) => `| \`${s.env}\` | \`${s.shownDefault}\` | ${s.description} |`);
  return ['| Variable | Default | Meaning |', '|---|---|---|', ...rows].join('\n');
}
