import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import type { Config } from '../config.ts';
import type { Storage } from '../storage/storage.ts';
import { createBackupLeaseRepo } from './backup-lease.repo.ts';
import { pruneBackups } from './backup-files.ts';
import { backupSqliteDatabase, POSTGRES_BACKUP_ADVICE, type BackupTaken } from './sqlite-backup.ts';

declare module 'fastify' {
  interface FastifyInstance {
    /** The scheduled backups (MAQAM_BACKUP_SCHEDULE), when this server takes them. */
    backups: BackupSchedule | undefined;
  }
}

/** The longest wait between two looks at the schedule; the times themselves come from the clock, so tests move it instead. */
const LOOK_EVERY_MS = 60_000;

export interface BackupSchedule {
  /**
   * Takes the backup if one is due and this process is the one that claims
   * it, then deletes all but the newest MAQAM_BACKUP_COUNT; answers it, or
   * undefined when none was due or another process took it. The timer calls
   * it; tests call it after moving the clock.
   */
  runDue(): Promise<BackupTaken | undefined>;
}

export interface BackupScheduleDeps {
  config: Pick<Config, 'backupIntervalMs' | 'backupCount' | 'backupDirectory'>;
  storage: Pick<Storage, 'db' | 'dialect' | 'sqliteFile'>;
  clock: () => number;
}

/**
 * Takes SQLite backups on MAQAM_BACKUP_SCHEDULE while the server runs, and
 * keeps the last MAQAM_BACKUP_COUNT. When the schedule is due is kept in the
 * database (backup-lease.repo.ts), so a restart does not reset it and, of
 * several servers on one database, one takes each backup. The first is due
 * at once; each next one an interval after the last was claimed.
 */
export function scheduleBackups(app: FastifyInstance, { config, storage, clock }: BackupScheduleDeps): void {
  app.decorate('backups', undefined);
  const interval = config.backupIntervalMs;
  if (interval === undefined) return;
  if (storage.dialect !== 'sqlite' || storage.sqliteFile === undefined) {
    app.log.warn(`MAQAM_BACKUP_SCHEDULE is set but takes no backups here (${storage.dialect === 'postgres' ? 'PostgreSQL' : 'an in-memory database'}). ${POSTGRES_BACKUP_ADVICE}`);
    return;
  }
  const schedule = createSchedule(createBackupLeaseRepo(storage.db), storage.sqliteFile, config, interval, clock, app.log);
  app.backups = schedule;
  let running: Promise<unknown> | undefined;
  const timer = setInterval(() => {
    running ??= schedule.runDue().catch((error: unknown) => app.log.error({ err: error }, 'the scheduled backup failed')).finally(() => (running = undefined));
  }, Math.min(interval, LOOK_EVERY_MS)).unref();
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}

function createSchedule(
  lease: ReturnType<typeof createBackupLeaseRepo>, databaseFile: string, config: BackupScheduleDeps['config'], interval: number, clock: () => number, log: FastifyBaseLogger,
): BackupSchedule {
  return {
    async runDue() {
      const now = clock();
      let due = await lease.nextDue();
      if (due === undefined) {
        await lease.start(now);
        due = (await lease.nextDue())!;
      }
      if (now < due || !(await lease.claim(due, now + interval))) return undefined;
      const taken = await backupSqliteDatabase({ databaseFile, directory: config.backupDirectory, at: now });
      const deleted = pruneBackups(config.backupDirectory, config.backupCount);
      log.info({ backup: taken.path, bytes: taken.bytes, deleted }, 'scheduled backup taken');
      return taken;
    },
  };
}
