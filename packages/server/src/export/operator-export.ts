import { LocaleNegotiator } from '../locale/negotiation.ts';
import type { Storage } from '../storage/storage.ts';
import { createExportRepo } from './export.repo.ts';
import { createExportService, type OpenedExport } from './export.service.ts';

/**
 * A user's export for an operator (`maqam users export`): the document the
 * route streams, its texts in the language `acceptLanguage` asks for (an
 * Accept-Language value; the default locale when absent) as the routes
 * negotiate it.
 */
export async function openOperatorExport(
  storage: Pick<Storage, 'db' | 'inByteOrder'>,
  { userId, defaultLocale, acceptLanguage, clock = Date.now }: { userId: string; defaultLocale: string; acceptLanguage?: string | undefined; clock?: () => number },
): Promise<OpenedExport> {
  const repo = createExportRepo(storage);
  const negotiator = new LocaleNegotiator(defaultLocale);
  negotiator.setCatalogLanguages(await repo.catalogLanguages());
  const negotiation = negotiator.negotiate(acceptLanguage);
  if (negotiation === null) throw new Error(`"${acceptLanguage}" is not a language such as ar or en-GB`);
  return createExportService({ repo, clock }).open(userId, negotiation.chain);
}
