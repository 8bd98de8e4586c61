import type { ArtistRecord } from '@maqam/contract';
import { images, lower, texts, type BatchRows } from '../batch-rows.ts';
import type { ImportProjection } from '../projection.ts';

/** An artist record: its row. */
export function addArtist(rows: BatchRows, line: number, r: ArtistRecord): void {
  rows.noteId('artist', r.id, line);
  rows.noteLanguages(r.name, r.originalLanguage);
  if (r.bio) rows.noteLanguages(r.bio, r.originalLanguage);
  rows.artistIds.add(r.id);
  rows.artists.push({
    id: r.id,
    name_i18n: texts(r.name),
    original_language: lower(r.originalLanguage),
    bio_i18n: r.bio ? texts(r.bio) : null,
    genres: JSON.stringify(r.genres),
    follower_count: String(r.followerCount),
    monthly_listeners: String(r.monthlyListeners),
    is_verified: r.isVerified ? 1 : 0,
    social_links: JSON.stringify(r.socialLinks.map(({ platform, url }) => ({ platform, url }))),
    artwork: images(r.artwork),
    nationality: r.nationality,
    withdrawn: r.withdrawn ? 1 : 0,
    updated_at: rows.now,
  });
}

/** Writes the batch's artists. */
export const writeArtists: ImportProjection = async ({ trx, upsert, rows }) => {
  await upsert(trx, 'artists', ['id'], rows.artists);
};
