/** The server package's public surface, used by the CLI, tests and benchmarks. */
export { buildApp, BODY_LIMIT } from './app.ts';
export type { DemoApp } from './demo/demo.routes.ts';
export { loadConfig, SETTINGS, ConfigError, configTableMarkdown, type Config } from './config.ts';
export { startServer, closeOnSignals, type RunningServer } from './serve.ts';
export { openStorage, migrateToLatest, STAMP_MAX_AGE_MS, type Storage } from './storage/storage.ts';
export { prepareDatabase, STORED_FORMATS } from './prepare-database.ts';
export type { RebuildProgress } from './storage/stored-formats.ts';
export { ImportBatch, importNdjsonFile, runImport, type ImportBatchWriter, type ImportOutcome, type LineError } from './catalog/import.ts';
export { createCatalogRepo, type CatalogRepo } from './catalog/catalog.repo.ts';
export { seedDemoCatalog, generateDemoCatalog, demoCatalogSize, seededRandom } from './catalog/demo-catalog.ts';
export { createApiKeysService, ApiKeyNotFoundError, type ApiKeysService } from './keys/api-keys.service.ts';
export { createApiKeysRepo } from './keys/api-keys.repo.ts';
export { ERRORS, VIOLATIONS, STATUS_OF_CODE } from './errors.ts';
export { createUsersService, UserInputError, type UsersService, type UserSummary } from './oauth/users.service.ts';
export { createClientsService, ClientInputError, SCOPES, type ClientsService } from './oauth/clients.service.ts';
export { addMedia, MediaError } from './streaming/media.ts';
export { scanMusicFolder, type ScanSummary, type ScanProblem } from './streaming/media-scan.ts';
export { createLedgerRepo, type LedgerGrouping, type LedgerGroup } from './streaming/ledger.repo.ts';
