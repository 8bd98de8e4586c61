import Fastify, { LogController, type FastifyInstance, type FastifyServerOptions } from 'fastify';
import swagger from '@fastify/swagger';
import { createHmac } from 'node:crypto';
import { METHODS } from 'node:http';
import { completeOpenApiDocument } from './http/openapi.ts';
import { registerDocsUi } from './http/docs-ui.ts';
import { ApiError, invalidRequest } from './errors.ts';
import type { Config } from './config.ts';
import { createCatalogRepo } from './catalog/catalog.repo.ts';
import { BufferPool } from './catalog/buffer-pool.ts';
import { createCatalogService } from './catalog/catalog.service.ts';
import { createFragmentReads } from './catalog/fragment-reads.ts';
import { createVideoRepo } from './video/video.repo.ts';
import { createVideoService } from './video/video.service.ts';
import { videoRoutes } from './video/video.routes.ts';
import { createWatchingRepo } from './library/watching.repo.ts';
import { createWatchingService } from './library/watching.service.ts';
import { watchingRoutes } from './library/watching.routes.ts';
import { videoStreamingRoutes } from './streaming/video-streaming.routes.ts';
import { createVideoStreamingService } from './streaming/video-streaming.service.ts';
import { createVideoStreamingRepo } from './streaming/video-streaming.repo.ts';
import { createVideoUrlSigner } from './streaming/video-urls.ts';
import { ArtistNames } from './catalog/artist-names.ts';
import { watchCatalog } from './catalog/catalog-watch.ts';
import { FragmentCache } from './catalog/fragment-cache.ts';
import { createPageCursorCodec, keysetPage } from './catalog/page-cursor.ts';
import { pageRequest } from './catalog/paging.ts';
import { catalogRoutes } from './catalog/catalog.routes.ts';
import { artworkRoutes } from './catalog/artwork.routes.ts';
import { coverFileOf } from './streaming/media-scan.ts';
import { createSearchRepo } from './search/search.repo.ts';
import { createSearchService } from './search/search.service.ts';
import { searchRoutes } from './search/search.routes.ts';
import { createGuard, type CredentialVerifiers } from './http/credentials.ts';
import { addressKey, createRateLimiter, credentialKey, FallbackRateLimitStore, MemoryRateLimitStore, RedisRateLimitStore } from './http/rate-limit.ts';
import { createErrorHandler } from './http/error-handler.ts';
import { createCors } from './http/cors.ts';
import { createClientErrorHandler, createFrameworkErrors } from './http/framework-errors.ts';
import { LocaleNegotiator } from './locale/negotiation.ts';
import { opsRoutes } from './http/ops.routes.ts';
import { createHttpMetrics } from './http/metrics.ts';
import { requestIdOf } from './http/request-id.ts';
import { logSerializers } from './http/log-redaction.ts';
import { validatorCompiler } from './http/validation.ts';
import { parseJsonBodies } from './http/json-body.ts';
import { createApiKeysRepo } from './keys/api-keys.repo.ts';
import { createApiKeysService } from './keys/api-keys.service.ts';
import { createDeveloperService } from './keys/developer.service.ts';
import { developerRoutes } from './keys/developer.routes.ts';
import { createKeyUsage, LEAK_REPORTS_PER_MINUTE } from './keys/key-usage.ts';
import { createRedisUsageTally } from './keys/redis-usage-tally.ts';
import { ensureServerSecret } from './storage/settings.repo.ts';
import { readCatalogVersion } from './storage/catalog-version.ts';
import { authorizeRoutes } from './oauth/authorize.routes.ts';
import { discoveryRoutes } from './oauth/discovery.routes.ts';
import { createSignInLimits } from './oauth/sign-in-limits.ts';
import { tokenRoutes } from './oauth/token.routes.ts';
import { createCsrf } from './oauth/authorize-flow.ts';
import { createClientsService } from './oauth/clients.service.ts';
import { createTokensService } from './oauth/tokens.service.ts';
import { createUsersService } from './oauth/users.service.ts';
import { createStreamUrlSigner } from './streaming/stream-urls.ts';
import { createTokenSealer } from './crypto/sealed-token.ts';
import { createStreamingService } from './streaming/streaming.service.ts';
import { createStreamingRepo } from './streaming/streaming.repo.ts';
import { streamingRoutes } from './streaming/streaming.routes.ts';
import { createSegmentSender, SEGMENT_BLOCKS_BYTES } from './streaming/segment-body.ts';
import type { Storage } from './storage/storage.ts';
import { createIdempotencyRecordsRepo } from './storage/idempotency-records.repo.ts';
import { openApiScopes } from './oauth/scopes.ts';
import { wireEdge } from './http/edge.ts';
import { createIdempotency } from './http/idempotency.ts';
import { CHANGES_KEPT_MS, createUserStore } from './library/user-write.ts';
import { createRetention } from './library/retention.ts';
import { createRetentionRepo } from './library/retention.repo.ts';
import { createLibraryRepo } from './library/library.repo.ts';
import { createLibraryService } from './library/library.service.ts';
import { createHistoryRepo } from './library/history.repo.ts';
import { createHistoryService } from './library/history.service.ts';
import { libraryRoutes } from './library/library.routes.ts';
import { createPlaylistsRepo } from './playlists/playlists.repo.ts';
import { createPlaylistService } from './playlists/playlists.service.ts';
import { playlistRoutes } from './playlists/playlists.routes.ts';
import { demoRoutes, type DemoApp } from './demo/demo.routes.ts';
import { exportRoutes } from './export/export.routes.ts';
import { createExportRepo } from './export/export.repo.ts';
import { createExportService } from './export/export.service.ts';
import { scheduleBackups } from './backup/backup-schedule.ts';

/** Contract section 8: bodies over 1 MiB are a 413. */
export const BODY_LIMIT = 1024 * 1024;
const CATALOG_POLL_MS = 1000;
const DAY_MS = 24 * 3600 * 1000;
/** Idempotency-Key answers are kept 24 hours. */
const IDEMPOTENCY_KEPT_MS = DAY_MS;
/**
 * How long a request holds its key unanswered before a retry may take it over (its node may have died): at
 * least a minute, and longer than a write whose statements each wait their whole deadline (MAQAM_DB_TIMEOUT_MS).
 */
const idempotencyLeaseMs = (databaseTimeoutMs: number) => Math.max(60 * 1000, 10 * databaseTimeoutMs);
/** Longest path parameter the router takes; longer is a 414 (ids are at most 128 characters anyway). */
const MAX_PARAM_LENGTH = 512;
/** Every method Node parses: on an API path, whichever the path does not serve is a 405 with Allow. CONNECT names no path. */
const ALL_METHODS = METHODS.filter((method) => method !== 'CONNECT');

export interface AppDeps {
  config: Config;
  storage: Storage;
  /** pino options or `false`; tests pass false. */
  logger?: FastifyServerOptions['logger'];
  /** The demo web app to serve at /demo (`maqam serve --demo`). */
  demo?: DemoApp;
  /** The fragment cache's hash seed (tests that make two ids' hashes collide); random by default. */
  fragmentCacheHashSeed?: number;
  /** How often the catalog version is polled (tests of the word through Redis make it rare); a second by default. */
  catalogPollMs?: number;
  /**
   * The one clock of everything that expires or is counted in time: tokens,
   * codes, page tokens, stream URLs, sign-in forms, rate-limit windows, API
   * keys' expiry and last use. Tests move it instead of sleeping. Date.now by default.
   */
  clock?: () => number;
}

/** Derives a purpose-bound key from the server secret, so no two uses share one. */
function subkey(secret: string, purpose: string): Buffer {
  return createHmac('sha256', secret).update(`maqam/${purpose}`).digest();
}

/**
 * Builds the whole API on a migrated database. It never listens: main.ts does,
 * and tests call `inject` or listen on a port of their own.
 */
export async function buildApp({ config, storage, logger, demo, fragmentCacheHashSeed, catalogPollMs, clock = Date.now }: AppDeps): Promise<FastifyInstance> {
  const negotiator = new LocaleNegotiator(config.defaultLocale);
  const handleError = createErrorHandler(negotiator, BODY_LIMIT);
  const logsRequests = config.logLevel === 'debug' || config.logLevel === 'trace';
  const app: FastifyInstance = Fastify({
    logger: logger === false ? false : { level: config.logLevel, ...(typeof logger === 'object' ? logger : {}), serializers: logSerializers },
    bodyLimit: BODY_LIMIT,
    genReqId: requestIdOf,
    requestIdHeader: false,
    // A log line per request costs more than a cached BatchGetSongs; debug and trace turn them on.
    logController: new LogController({ disableRequestLogging: !logsRequests }),
    routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
    // Every connection has a deadline in every state (the config table says why each is what it is): a
    // client that stalls mid-headers or mid-body, or sits idle, is closed; a timed-out request is answered
    // 400 by the client error handler. Node checks the first two on an interval, here a fraction of them.
    requestTimeout: config.requestTimeoutMs,
    keepAliveTimeout: config.keepAliveTimeoutMs,
    // A request without Host is answered by our hook below, in the contract's shape, not by Node with an empty 400.
    http: {
      requireHostHeader: false,
      headersTimeout: config.headersTimeoutMs,
      connectionsCheckingInterval: Math.min(1000, Math.ceil(config.headersTimeoutMs / 4)),
    },
    frameworkErrors: createFrameworkErrors(handleError, MAX_PARAM_LENGTH),
    // A request that arrives while the server closes is answered by our onRequest hook, in the contract's shape.
    return503OnClosing: false,
    clientErrorHandler: createClientErrorHandler(negotiator.messageLocale(undefined), { debug: (object, message) => app.log.debug(object, message) }),
  });
  for (const method of ALL_METHODS) {
    if (!app.supportedMethods.includes(method)) app.addHttpMethod(method);
  }
  app.setValidatorCompiler(validatorCompiler);
  // The API takes JSON bodies only; any other type is a 400 naming Content-Type. Bounded before anything walks them (http/json-body.ts).
  app.removeContentTypeParser('text/plain');
  parseJsonBodies(app);
  const secret = await ensureServerSecret(storage.db, config.secret);
  const cache = new FragmentCache(config.songCacheMegabytes * 1024 * 1024, { hashSeed: fragmentCacheHashSeed });
  const catalogRepo = createCatalogRepo(storage);
  const artistNames = new ArtistNames(catalogRepo);
  const cursors = createPageCursorCodec(createTokenSealer(subkey(secret, 'page-token')), config.pageTokenTtlSeconds, clock);
  // Idle blocks for about a hundred answers in flight: more than the connections a loaded node serves at once.
  const buffers = new BufferPool(8 * 1024 * 1024);
  const metrics = createHttpMetrics();
  const reads = createFragmentReads({ cache, buffers });
  const catalog = createCatalogService({ repo: catalogRepo, reads, artistNames, cursors, publicUrl: config.publicUrl });
  const video = createVideoService({ repo: createVideoRepo(storage), reads, catalog, cursors, publicUrl: config.publicUrl });
  const search = createSearchService({ repo: createSearchRepo(storage), catalog, video, cursors });
  const watcher = await watchCatalog({
    repo: catalogRepo, catalogVersion: () => readCatalogVersion(storage.db), caches: [cache, artistNames, search], negotiator, changes: storage.catalogChanges, intervalMs: catalogPollMs ?? CATALOG_POLL_MS, log: app.log,
  });
  // Shutdown (serve.ts closeOnSignals): Fastify stops accepting connections and closes the idle ones; a
  // request taken before is answered, with Connection: close so its connection ends after it; one that
  // arrives on a kept-alive connection afterwards is answered 503 with Retry-After and Connection: close
  // (the onRequest hook below). A connection busy when the close began and idle since (its answer sent
  // before, its body read after) would hold the close until its keep-alive deadline: idle connections are
  // closed again every tenth of a second until the server has closed.
  let closing = false;
  let sweep: NodeJS.Timeout | undefined;
  app.addHook('preClose', (done) => {
    closing = true;
    sweep = setInterval(() => app.server.closeIdleConnections(), 100).unref();
    done();
  });
  app.addHook('onSend', (_request, reply, payload, done) => {
    if (closing) reply.header('connection', 'close');
    done(null, payload);
  });
  app.addHook('onClose', async () => {
    clearInterval(sweep);
    watcher.stop();
  });

  const apiKeysRepo = createApiKeysRepo(storage.db, { writeVersion: storage.writeVersion });
  const apiKeys = createApiKeysService(apiKeysRepo, clock, (error) => app.log.warn({ err: error }, 'could not record an API key\'s last use'));
  // Each answer to a key is counted in memory and written at most once a minute, and at a clean stop (keys/key-usage.ts);
  // with Redis, every node's counts meet there each second.
  const keyUsage = createKeyUsage(apiKeysRepo, clock, {
    shared: config.redisUrl ? createRedisUsageTally(config.redisUrl, await requireDeploymentId(storage), clock) : undefined,
    onError: (error) => app.log.warn({ err: error }, 'could not hand on or write API keys\' usage; kept for the next try'),
  });
  keyUsage.start();
  app.decorate('keyUsage', keyUsage);
  app.addHook('onClose', async () => keyUsage.stop());
  const tokens = createTokensService(storage.db, {
    accessTokenTtlSeconds: config.accessTokenTtlSeconds,
    codeTtlSeconds: config.codeTtlSeconds,
    writeVersion: storage.writeVersion,
    clock,
  });
  const verifiers: CredentialVerifiers = {
    apiKey: (key) => apiKeys.verify(key),
    accessToken: async (token) => {
      const info = await tokens.verifyAccessToken(token);
      return info && { kind: 'token', ...info };
    },
  };

  // One store counts calls per credential and failed sign-ins: shared through Redis when there is one.
  const store = config.redisUrl ? new RedisRateLimitStore(config.redisUrl, await requireDeploymentId(storage)) : new MemoryRateLimitStore();
  app.addHook('onClose', async () => store.close());
  await store.ready();
  const limiting = config.rateLimitPerMinute > 0;
  const limiter = limiting ? createRateLimiter({ store, perMinute: config.rateLimitPerMinute, log: app.log, keyOf: credentialKey, clock }) : undefined;
  const addressLimiter = limiting ? createRateLimiter({ store, perMinute: config.rateLimitPerMinute, log: app.log, keyOf: addressKey, clock }) : undefined;
  const guard = createGuard(verifiers, limiter);
  const leakReportLimiter = limiting ? createRateLimiter({ store, perMinute: LEAK_REPORTS_PER_MINUTE, log: app.log, keyOf: (request) => `leak-report:${addressKey(request)}`, clock }) : undefined;

  // The methods each API path answers: for Allow on a 405 and for CORS preflights. Filled while routes are added.
  const methodsByPath = new Map<string, Set<string>>();
  let routesAdded = false;
  app.addHook('onRoute', (route) => {
    if (routesAdded || (!route.url.startsWith('/v1/') && !route.url.startsWith('/.well-known/'))) return;
    const methods = methodsByPath.get(route.url) ?? new Set<string>();
    for (const method of [route.method].flat()) methods.add(method);
    methodsByPath.set(route.url, methods);
  });

  app.decorateRequest('principal', null);
  // Hooks that never wait take a callback rather than return a promise: they run on every request. A throw is a refusal.
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id).header('x-content-type-options', 'nosniff');
    // Closing: a retry a second later reaches another node, or this one restarted.
    if (closing) throw new ApiError('unavailable', { headers: { 'retry-after': '1', connection: 'close' } });
    // RFC 9112 §3.2: an HTTP/1.1 request without Host is a 400.
    if (request.raw.httpVersionMajor === 1 && request.raw.httpVersionMinor === 1 && request.headers.host === undefined) {
      throw invalidRequest({ field: 'Host', reason: 'required' });
    }
    done();
  });
  const clients = createClientsService(storage.db);
  // Before the credential and rate-limit hooks: a preflight is answered here, and a refusal below still carries the CORS headers.
  app.addHook('onRequest', createCors({
    configured: config.corsOrigins,
    ownOrigin: new URL(config.publicUrl).origin,
    redirectUris: async () => (await clients.list()).flatMap((client) => client.redirectUris),
    writeVersion: storage.writeVersion,
    methodsOf: (url) => (methodsByPath.has(url) ? [...methodsByPath.get(url)!] : undefined),
  }));
  app.setErrorHandler(handleError);
  app.setNotFoundHandler(async (request) => {
    throw new ApiError('routeNotFound', { params: { method: request.method, path: request.url.split('?')[0]! } });
  });

  await app.register(swagger, {
    transformObject: (documents) => completeOpenApiDocument((documents as { openapiObject: Parameters<typeof completeOpenApiDocument>[0] }).openapiObject),
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Maqam API',
        version: '1.0.0',
        description: 'Arabic-first music catalog and streaming API.',
        license: { name: 'MIT', identifier: 'MIT' },
        contact: { name: 'Maqam', url: `${config.publicUrl}/docs` },
      },
      servers: [{ url: config.publicUrl }],
      components: {
        securitySchemes: {
          oauth2: {
            type: 'oauth2',
            description: 'A signed-in user: OAuth 2.0 authorization code with PKCE (S256); public clients, no secret.',
            flows: {
              authorizationCode: {
                authorizationUrl: `${config.publicUrl}/v1/auth/authorize`,
                tokenUrl: `${config.publicUrl}/v1/auth/token`,
                refreshUrl: `${config.publicUrl}/v1/auth/token/refresh`,
                scopes: openApiScopes(),
              },
            },
          },
          apiKeyAuth: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'Server-to-server API key, `mk_<id>_<secret>` (create one with `maqam keys create`).' },
        },
      },
      tags: [
        { name: 'MusicCatalogService', description: 'Songs, albums, artists and lyrics.' },
        { name: 'VideoCatalogService', description: 'Shows, seasons, episodes and films, their soundtracks, and parental caps.' },
        { name: 'DiscoveryService', description: 'Arabic-aware search.' },
        { name: 'AuthService', description: 'OAuth 2.0 authorization code with PKCE, refresh with rotation, revocation.' },
        { name: 'StreamingService', description: 'Signed HLS streams for signed-in users.' },
        { name: 'LibraryService', description: 'The signed-in user\'s library: saved songs and albums, followed artists, listening history and a change feed.' },
        { name: 'DeveloperService', description: 'A developer\'s own API keys: scannable, scoped, rotated with overlap, their use counted.' },
        { name: 'PlaylistService', description: 'Playlists: entries with ids of their own, versions as ETags (If-Match, If-None-Match), safe retries.' },
      ],
    },
  });
  await registerDocsUi(app, { clientId: config.docsClientId });

  // Paths the API serves, so a wrong method is a 405 and not a 404.

  // Every route registered from here on that declares its access is wired by the edge (http/edge.ts).
  // What ages out of users' rows is forgotten once a minute for the users written for, off the writes' path (library/retention.ts).
  const retention = createRetention(createRetentionRepo(storage.db), (now) => ({
    changesBefore: now - CHANGES_KEPT_MS, playsBefore: now - config.historyDays * DAY_MS, answersBefore: now - IDEMPOTENCY_KEPT_MS,
  }), clock, app.log);
  retention.start();
  app.decorate('retention', retention);
  app.addHook('onClose', async () => retention.stop());
  const idempotencyRecords = createIdempotencyRecordsRepo(storage.db, { keptMs: IDEMPOTENCY_KEPT_MS, leaseMs: idempotencyLeaseMs(config.databaseTimeoutMs) });
  const idempotency = createIdempotency({
    ...idempotencyRecords,
    // A user who only checks with keys has answers to forget too.
    claim: (userId, key, fingerprint, now) => {
      retention.noteUser(userId);
      return idempotencyRecords.claim(userId, key, fingerprint, now);
    },
  }, clock, app.log);
  wireEdge(app, { guard, negotiator, idempotency, countKeyUse: keyUsage.countAnswer });
  await app.register(catalogRoutes, { catalog });
  await app.register(videoRoutes, { video });
  artworkRoutes(app, catalogRepo, (albumId) => coverFileOf(config.mediaDirectory, albumId));
  searchRoutes(app, { search });
  opsRoutes(app, storage, metrics);
  const signer = createStreamUrlSigner(createTokenSealer(subkey(secret, 'stream-url')), clock);
  // Music's and video's segments share the blocks their bytes go through (streaming/segment-body.ts).
  const sendSegment = createSegmentSender(new BufferPool(SEGMENT_BLOCKS_BYTES));
  videoStreamingRoutes(app, {
    video: createVideoStreamingService(createVideoStreamingRepo(storage.db), {
      publicUrl: config.publicUrl, urlTtlSeconds: config.streamUrlTtlSeconds, graceSeconds: config.streamGraceSeconds,
      signer: createVideoUrlSigner(createTokenSealer(subkey(secret, 'video-stream-url')), clock), clock,
    }),
    mediaRoot: config.mediaDirectory,
    sendSegment,
    clock,
  });
  streamingRoutes(app, {
    streaming: createStreamingService(createStreamingRepo(storage.db), { publicUrl: config.publicUrl, urlTtlSeconds: config.streamUrlTtlSeconds, graceSeconds: config.streamGraceSeconds, signer, clock }),
    signer,
    mediaRoot: config.mediaDirectory,
    publicUrl: config.publicUrl,
    sendSegment,
    clock,
  });
  // A user's writes: one transaction each, with every feature's repository bound to it (library/user-write.ts).
  const libraryRepo = createLibraryRepo(storage);
  const historyRepo = createHistoryRepo(storage);
  const playlistsRepo = createPlaylistsRepo(storage);
  const watchingRepo = createWatchingRepo(storage);
  // Bound when a write asks for it: a save makes no playlist session.
  const writes = createUserStore(storage, (session) => ({
    get library() { return libraryRepo.within(session); },
    get history() { return historyRepo.within(session); },
    get playlists() { return playlistsRepo.within(session); },
    get watching() { return watchingRepo.within(session); },
  }), { wrote: retention.noteUser, turnTimeoutMs: config.databaseTimeoutMs });
  await app.register(libraryRoutes, {
    catalog,
    library: createLibraryService({
      repo: libraryRepo, writes, catalog, cursors, changeCursors: createTokenSealer(subkey(secret, 'library-changes')), clock,
    }),
    history: createHistoryService({ repo: historyRepo, writes, catalog, cursors, historyDays: config.historyDays, clock }),
    idempotency,
  });
  await app.register(watchingRoutes, {
    catalog,
    watching: createWatchingService({ repo: watchingRepo, writes, video, catalog, cursors, clock }),
    idempotency,
  });
  await app.register(playlistRoutes, {
    playlists: createPlaylistService({
      repo: playlistsRepo, writes, catalog, cursors, clock, maxItems: config.playlistMaxItems, publicUrl: config.publicUrl,
    }),
    idempotency,
  });
  await app.register(exportRoutes, { exports: createExportService({ repo: createExportRepo(storage), clock }) });
  scheduleBackups(app, { config, storage, clock });
  const users = createUsersService(storage.db);
  await app.register(developerRoutes, {
    developer: createDeveloperService({
      repo: apiKeysRepo,
      keys: apiKeys,
      usageOf: keyUsage.read,
      isDeveloper: (userId) => users.hasRole(userId, 'developer'),
      pages: (query, listScope) => keysetPage<[number, string]>(cursors, pageRequest(query), listScope, ['number', 'string']),
      clock,
      serverLimitPerMinute: config.rateLimitPerMinute,
    }),
    leakReportLimiter,
  });
  await app.register(authorizeRoutes, {
    issuer: config.publicUrl,
    clients,
    users,
    tokens,
    csrf: createCsrf(subkey(secret, 'csrf'), clock),
    // Failed sign-ins are counted in this process while Redis is away: guessing must not get easier in an outage.
    signInLimits: createSignInLimits(new FallbackRateLimitStore(store), clock),
    secureCookies: config.publicUrl.startsWith('https:'),
  });
  await app.register(tokenRoutes, {
    clients,
    tokens,
    addressLimiter,
    clock,
    oauthErrors: createErrorHandler(negotiator, BODY_LIMIT, { oauth: true }),
  });
  await app.register(discoveryRoutes, { issuer: config.publicUrl });
  if (demo) await demoRoutes(app, demo);

  routesAdded = true;
  for (const [url, methods] of methodsByPath) {
    const others = ALL_METHODS.filter((m) => !methods.has(m));
    const allowed = [...methods].join(', ');
    app.route({
      method: others,
      url,
      schema: { hide: true },
      handler: async (request, reply) => {
        reply.header('allow', allowed);
        throw new ApiError('methodNotAllowed', { params: { method: request.method, allowed } });
      },
    });
  }
  return app;
}

/** What names this deployment's shared state in Redis; the server only ever runs on a migrated database. */
async function requireDeploymentId(storage: Storage): Promise<string> {
  const id = await storage.deploymentId();
  if (id === undefined) throw new Error('the database is not migrated: run the server (or any maqam command) once to migrate it');
  return id;
}
