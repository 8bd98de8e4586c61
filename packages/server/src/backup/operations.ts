/**
 * What operators run against a database's backups (`maqam backup`, `maqam restore`), in one place for the CLI.
 */
export { backupSqliteDatabase, BackupError, POSTGRES_BACKUP_ADVICE, type BackupTaken } from './sqlite-backup.ts';
export { restoreSqliteBackup, RestoreRefusedError, POSTGRES_RESTORE_ADVICE, type RestoreSummary } from './restore.ts';
export { NotABackupError } from './sqlite-files.ts';
export { listBackups, pruneBackups, backupFileName } from './backup-files.ts';
export { openOperatorExport } from '../export/operator-export.ts';
export { exportFileName } from '../export/export.service.ts';
