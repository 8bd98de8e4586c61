/** The server package's public surface, used by the CLI, tests and benchmarks. */
export { buildApp, BODY_LIMIT } from './app.ts';
export type { DemoApp, DemoConfig } from './demo/demo.routes.ts';
export { loadConfig, SETTINGS, ConfigError, configTableMarkdown, type Config } from './config.ts';
export { startServer, closeOnSignals, type RunningServer } from './serve.ts';
export { openStorage, migrateToLatest, VERSION_MAX_AGE_MS, type Storage } from './storage/storage.ts';
export { prepareDatabase, STORED_FORMATS } from './prepare-database.ts';
export type { RebuildProgress } from './storage/stored-formats.ts';
export { importNdjsonFile, runImport, type ImportBatchWriter, type ImportOutcome } from './import/import.ts';
export { ImportBatch, type LineError } from './import/import-batch.ts';
export { createCatalogRepo, type CatalogRepo } from './catalog/catalog.repo.ts';
export { seedDemoCatalog, seedDemoVideo, seedKnownArtists, generateDemoCatalog, demoCatalogSize, seededRandom } from './import/demo-catalog.ts';
export { KNOWN_ARTISTS, knownArtistId, knownSongs } from './import/known-artists.ts';
export { packageDemoMusic, demoMusicDurations } from './demo/demo-music.ts';
export {
  packageDemoVideo, packageDemoTitle, demoVideoTitles, clipTitleOf, DEMO_FEATURED_SHOWS, DEMO_FEATURED_MOVIES, WINDOWS_1256_SUBTITLED,
  type DemoVideoOptions, type PackagedDemoTitle,
} from './demo/demo-video-media.ts';
export { createApiKeysService, ApiKeyNotFoundError, type ApiKeysService } from './keys/api-keys.service.ts';
export { createApiKeysRepo } from './keys/api-keys.repo.ts';
export { formatKey, parseKey, CHECKSUMMED_KEY_SOURCE } from './keys/key-format.ts';
export { ERRORS, VIOLATIONS, STATUS_OF_CODE } from './errors.ts';
export { createUsersService, UserInputError, type UsersService, type UserSummary } from './oauth/users.service.ts';
export { createClientsService, ClientInputError, type ClientsService } from './oauth/clients.service.ts';
export { addMedia, MediaError } from './streaming/media.ts';
export { scanMusicFolder, type ScanSummary, type ScanProblem, type PartialDate } from './streaming/media-scan.ts';
export { createLedgerRepo, type LedgerGrouping, type LedgerGroup } from './streaming/ledger.repo.ts';
export { addVideo, findVideoTitles, languageName, planLadder, videoDirectoryOf, type PackagedVideo, type VideoPackagingOptions, type VideoPackagingProgress, type VideoTitle } from './streaming/video-packager.ts';
export { masterPlaylist, LADDER, VIDEO_PACKAGE_FILE, type VideoPackage } from './streaming/video-package.ts';
export { decodeSubtitleBytes, parseSubtitles } from './streaming/subtitle-text.ts';
export { backupSqliteDatabase, BackupError, NotABackupError, POSTGRES_BACKUP_ADVICE, restoreSqliteBackup, RestoreRefusedError, openOperatorExport, exportFileName } from './backup/operations.ts';
