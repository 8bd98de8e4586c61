import { existsSync } from 'node:fs';
import { stat } from 'node:fs/promises';
import { demoCatalogSize, importNdjsonFile, prepareDatabase, seedDemoCatalog, type Config } from '@maqam/server';
import { describeDatabase, openConfiguredStorage, reportRebuilds, withStorage } from '../context.ts';
import { parsePositiveInteger, progressMeter, UsageError, type Output } from '../output.ts';

export async function migrate(config: Config, out: Output): Promise<number> {
  out.info(`database: ${describeDatabase(config.databaseUrl)}`);
  const storage = openConfiguredStorage(config, out);
  try {
    const { migrations: applied, rebuilt } = await prepareDatabase(storage, reportRebuilds(out));
    out.record({ applied, rebuilt }, () =>
      applied.length === 0 && rebuilt.length === 0
        ? 'database is up to date'
        : [applied.length > 0 ? `applied: ${applied.join(', ')}` : '', rebuilt.length > 0 ? `rebuilt: ${rebuilt.join(', ')}` : ''].filter(Boolean).join('\n'));
    return 0;
  } finally {
    await storage.close();
  }
}

export async function seedDemo(config: Config, out: Output, flags: { songs?: string; seed?: string }): Promise<number> {
  const songs = flags.songs === undefined ? undefined : parsePositiveInteger(flags.songs, '--songs');
  const seed = flags.seed === undefined ? undefined : parsePositiveInteger(flags.seed, '--seed');
  const size = demoCatalogSize(songs);
  out.info(`seeding ${size.artists} artists, ${size.albums} albums and ${size.songs} songs...`);
  const started = performance.now();
  const meter = progressMeter('records');
  const summary = await withStorage(config, out, (storage) =>
    seedDemoCatalog(storage, {
      ...(songs === undefined ? {} : { songs }),
      ...(seed === undefined ? {} : { seed }),
      onProgress: (written, total) => out.progress(written / total, meter(written, written / total)),
    }),
  );
  out.done();
  const seconds = (performance.now() - started) / 1000;
  out.record({ ...summary, seconds: Math.round(seconds * 10) / 10 }, () =>
    `seeded ${summary.artists} artists, ${summary.albums} albums, ${summary.songs} songs, ${summary.related} related edges, ${summary.lyrics} lyrics in ${seconds.toFixed(1)} s`,
  );
  return 0;
}

/** Bad lines printed on standard error, and listed in the --json record. */
const SHOWN_BAD_LINES = 20;
const RECORDED_BAD_LINES = 100;

export async function importFile(config: Config, out: Output, file: string | undefined, flags: { 'batch-size'?: string }): Promise<number> {
  if (file === undefined) throw new UsageError('import needs a file: maqam import FILE.ndjson');
  if (!existsSync(file)) throw new UsageError(`no such file: ${file}`);
  const batchSize = flags['batch-size'] === undefined ? undefined : parsePositiveInteger(flags['batch-size'], '--batch-size');
  const { size } = await stat(file);
  const meter = progressMeter('lines');
  const outcome = await withStorage(config, out, (storage) =>
    importNdjsonFile(storage, file, {
      ...(batchSize === undefined ? {} : { batchSize }),
      onProgress: ({ bytesRead, linesRead }) => {
        const fraction = size === 0 ? 1 : bytesRead / size;
        out.progress(fraction, meter(linesRead, fraction));
      },
    }),
  );
  out.done();
  // A file with a systematic mistake has a bad line in every batch: show the first problems and count the rest.
  for (const error of outcome.errors.slice(0, SHOWN_BAD_LINES)) out.info(`${file}:${error.line}: ${error.message}`);
  if (outcome.errors.length > SHOWN_BAD_LINES) out.info(`... and ${(outcome.errors.length - SHOWN_BAD_LINES).toLocaleString('en')} more problem(s)`);
  const { summary } = outcome;
  // A line may have several problems: each is listed, the lines are counted once.
  const badLineCount = new Set(outcome.errors.map((error) => error.line)).size;
  const record = outcome.errors.length === 0
    ? summary
    : { ...summary, badLineCount, badLines: outcome.errors.slice(0, RECORDED_BAD_LINES) };
  out.record(record, () =>
    `imported ${summary.artists} artists, ${summary.albums} albums, ${summary.songs} songs, ${summary.related} related edges, ${summary.lyrics} lyrics` +
    (outcome.errors.length > 0 ? `; ${badLineCount} bad line(s) with ${outcome.errors.length} problem(s), their batches were not written` : ''),
  );
  return outcome.errors.length > 0 ? 1 : 0;
}
