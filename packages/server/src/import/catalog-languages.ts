import type { ImportProjection } from './projection.ts';

/** Records the languages the batch's texts are written in (locale negotiation matches against them). */
export const writeCatalogLanguages: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'catalog_languages', ['tag'], [...rows.languages].map((tag) => ({ tag })));
};
