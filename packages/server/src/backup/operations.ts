/**
 * What the CLI runs for operators against a database: backups (`maqam backup`), restore (`maqam restore`) and a
 * user's export (`maqam users export`), in one place. The CLI reaches it by path until the server's public
 * surface (src/index.ts) exports these.
 */
export { backupSqliteDatabase, BackupError, POSTGRES_BACKUP_ADVICE, type BackupTaken } from './sqlite-backup.ts';
export { restoreSqliteBackup, RestoreRefusedError, POSTGRES_RESTORE_ADVICE, type RestoreSummary } from './restore.ts';
export { NotABackupError } from './sqlite-files.ts';
export { listBackups, pruneBackups, backupFileName } from './backup-files.ts';
export { openOperatorExport } from '../export/operator-export.ts';
export { exportFileName } from '../export/export.service.ts';
