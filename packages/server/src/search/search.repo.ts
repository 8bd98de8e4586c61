import { sql } from 'kysely';
import type { Storage } from '../storage/storage.ts';
import type { SearchKind } from './search-index.ts';

/** One expansion of a query word: an indexed word, which query word it stands for, and how well it matches. */
export interface Expansion {
  readonly word: string;
  readonly queryWord: number;
  readonly quality: number;
}

/** An item every query word matched, with its relevance tier (lower is better) and popularity. */
export interface Candidate {
  kind: SearchKind;
  item_id: string;
  tier: number;
  popularity: number | string | null;
}

export function createSearchRepo(storage: Storage) {
  const { db } = storage;
  return {
    async vocabulary(): Promise<{ word: string; keys: string }[]> {
      return db.selectFrom('search_vocabulary').select(['word', 'keys']).execute();
    },

    /**
     * Every item of `kinds` matched by all `wordCount` query words. A song
     * matches a word through its title, its artists' names or its album's
     * title; an album through its title or its artists' names. The tier is
     * 0 when the whole query is the item's name, else the worst quality
     * among the words' best matches (1 whole words, 2 a prefix, 3 a variant).
     * Popularity as the contract orders by it. Sorted by the caller.
     */
    async candidates(expansions: readonly Expansion[], wordCount: number, wholeName: string, kinds: readonly SearchKind[]): Promise<Candidate[]> {
      if (expansions.length === 0) return [];
      const values = sql.join(expansions.map((e) => sql`(${e.word}, ${e.queryWord}, ${e.quality})`));
      const kindList = sql.join(kinds.map((kind) => sql`${kind}`));
      const result = await sql<Candidate>`
        with m (word, qi, quality) as (values ${values}),
        direct as (
          select p.kind, p.item_id, cast(m.qi as integer) as qi, min(cast(m.quality as integer)) as quality
          from search_postings p join m on p.word = m.word
          group by p.kind, p.item_id, m.qi
        ),
        via as (
          select 'song' as kind, sa.song_id as item_id, d.qi, d.quality
            from direct d join song_artists sa on sa.artist_id = d.item_id where d.kind = 'artist'
          union all
          select 'song' as kind, s.id as item_id, d.qi, d.quality
            from direct d join songs s on s.album_id = d.item_id where d.kind = 'album' and s.withdrawn = 0
          union all
          select 'album' as kind, aa.album_id as item_id, d.qi, d.quality
            from direct d join album_artists aa on aa.artist_id = d.item_id where d.kind = 'artist'
        ),
        hits as (
          select h.kind, h.item_id, h.qi, min(h.quality) as quality
          from (select kind, item_id, qi, quality from direct union all select kind, item_id, qi, quality from via) h
          group by h.kind, h.item_id, h.qi
        ),
        matched as (
          select kind, item_id, max(quality) as tier from hits
          where kind in (${kindList})
          group by kind, item_id having count(*) = ${wordCount}
        )
        select c.kind, c.item_id,
          case when exists (select 1 from search_postings w where w.word = ${wholeName} and w.kind = c.kind and w.item_id = c.item_id)
            then 0 else c.tier end as tier,
          case c.kind
            when 'song' then (select s.popularity from songs s where s.id = c.item_id)
            when 'artist' then (select cast(a.monthly_listeners as bigint) from artists a where a.id = c.item_id)
            else (select max(s.popularity) from songs s where s.album_id = c.item_id and s.withdrawn = 0)
          end as popularity
        from matched c
      `.execute(db);
      return result.rows;
    },
  };
}

export type SearchRepo = ReturnType<typeof createSearchRepo>;
