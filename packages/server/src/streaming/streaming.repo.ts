import type { Selectable } from 'kysely';
import type { Db, SongMediaTable } from '../storage/database.ts';

export type SongMediaRow = Selectable<SongMediaTable>;

/** A stream billed: who, through which client, what song and quality, when. */
export interface BilledStream {
  readonly ledgerId: string;
  readonly userId: string;
  readonly clientId: string;
  readonly songId: string;
  readonly quality: string;
  readonly acquiredAt: number;
  /** When the billing window it opens ends: until then the same user, song and quality is not billed again. */
  readonly windowEndsAt: number;
}

/** What streaming reads and writes: songs' packaged media, and the billing windows and ledger of streams. */
export function createStreamingRepo(db: Db) {
  return {
    /** A playable (not withdrawn) song's duration in milliseconds, as the catalog says; undefined when there is no such song. */
    async playableDurationMs(songId: string): Promise<number | undefined> {
      const song = await db.selectFrom('songs').select('duration_ms').where('id', '=', songId).where('withdrawn', '=', 0).executeTakeFirst();
      return song === undefined ? undefined : Number(song.duration_ms);
    },

    /** Whether a song of this id is in the catalog, withdrawn or not (media may be added to any). */
    async songExists(songId: string): Promise<boolean> {
      return (await db.selectFrom('songs').select('id').where('id', '=', songId).executeTakeFirst()) !== undefined;
    },

    /** Whether the song is packaged in any quality. */
    async hasMedia(songId: string): Promise<boolean> {
      return (await db.selectFrom('song_media').select('quality').where('song_id', '=', songId).executeTakeFirst()) !== undefined;
    },

    /** Records the song's packaged qualities as exactly these (others it had are forgotten), in one transaction. */
    async recordMedia(songId: string, media: readonly Omit<SongMediaRow, 'song_id'>[]): Promise<void> {
      await db.transaction().execute(async (trx) => {
        await trx.deleteFrom('song_media').where('song_id', '=', songId).where('quality', 'not in', media.map((row) => row.quality)).execute();
        for (const row of media) {
          await trx
            .insertInto('song_media')
            .values({ song_id: songId, ...row })
            .onConflict((oc) => oc.columns(['song_id', 'quality']).doUpdateSet((eb) => ({
              codec: eb.ref('excluded.codec'), bitrate_kbps: eb.ref('excluded.bitrate_kbps'), directory: eb.ref('excluded.directory'), created_at: eb.ref('excluded.created_at'),
            })))
            .execute();
        }
      });
    },

    /** Every quality the song is packaged in. */
    async mediaOf(songId: string): Promise<SongMediaRow[]> {
      return db.selectFrom('song_media').selectAll().where('song_id', '=', songId).execute();
    },

    /** Where one quality of a song is packaged (relative to the media root), if it is. */
    async mediaDirectory(songId: string, quality: string): Promise<string | undefined> {
      return (await db.selectFrom('song_media').select('directory').where('song_id', '=', songId).where('quality', '=', quality).executeTakeFirst())?.directory;
    },

    /**
     * Bills a stream unless the same user, song and quality has a billing
     * window open at `stream.acquiredAt`: claims the window (a new one, or
     * one that has ended) and writes the ledger row, in one transaction.
     * Answers whether it billed.
     */
    async billUnlessWindowOpen(stream: BilledStream): Promise<boolean> {
      return db.transaction().execute(async (trx) => {
        // Claims the billing window only if there is none or it has ended: atomic on either database.
        const claimed = await trx
          .insertInto('stream_entitlements')
          .values({ user_id: stream.userId, song_id: stream.songId, quality: stream.quality, ledger_id: stream.ledgerId, expires_at: stream.windowEndsAt })
          .onConflict((oc) =>
            oc
              .columns(['user_id', 'song_id', 'quality'])
              .doUpdateSet({ ledger_id: stream.ledgerId, expires_at: stream.windowEndsAt })
              .where('stream_entitlements.expires_at', '<=', stream.acquiredAt),
          )
          .returning('ledger_id')
          .executeTakeFirst();
        if (claimed?.ledger_id !== stream.ledgerId) return false;
        await trx
          .insertInto('stream_ledger')
          .values({ id: stream.ledgerId, user_id: stream.userId, client_id: stream.clientId, song_id: stream.songId, quality: stream.quality, acquired_at: stream.acquiredAt })
          .execute();
        return true;
      });
    },
  };
}

export type StreamingRepo = ReturnType<typeof createStreamingRepo>;
