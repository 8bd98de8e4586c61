// The naive reference: what a straightforward implementation does. Fastify,
// one `IN (...)` query per request (artists folded in with a subquery), parse
// the JSON columns, build objects, JSON.stringify. No caching, no auth.
import Fastify from 'fastify';
import { DatabaseSync } from 'node:sqlite';

const db = new DatabaseSync(process.env.DATABASE_FILE!, { readOnly: true });
const port = Number(process.env.PORT);
const chain = ['en', 'ar'];
const localized = (json: string, original: string) => {
  const texts = JSON.parse(json) as Record<string, string>;
  const originalValue = texts[original] ?? '';
  return { value: chain.map((t) => texts[t]).find((t) => t !== undefined) ?? originalValue, originalValue };
};

const app = Fastify({ logger: false });
app.post('/v1/music/songs:batchGet', async (request) => {
  const ids = (request.body as { songIdList: { value: string }[] }).songIdList.map((s) => s.value);
  const rows = db
    .prepare(
      `select s.*, (select json_group_array(json_object('id', a.id, 'names', a.name_i18n, 'orig', a.original_language))
                    from json_each(s.artist_ids) j join artists a on a.id = j.value) as artist_refs
       from songs s where s.id in (${ids.map(() => '?').join(',')}) and s.withdrawn = 0`,
    )
    .all(...ids) as Array<Record<string, any>>; // a naive handler, deliberately untyped
  const byId = new Map(rows.map((r) => [r.id, r]));
  const results: Record<string, unknown> = {};
  for (const id of ids) {
    const r = byId.get(id);
    if (!r) {
      results[id] = { error: { code: 'ERROR_CODE_NOT_FOUND', message: `No song with id "${id}".` } };
      continue;
    }
    results[id] = {
      song: {
        id: { value: r.id },
        title: localized(r.title_i18n, r.original_language),
        artists: (JSON.parse(r.artist_refs) as { id: string; names: string; orig: string }[]).map((a) => ({ id: { value: a.id }, name: localized(a.names, a.orig) })),
        albumId: { value: r.album_id },
        durationMs: r.duration_ms,
        trackNumber: r.track_number,
        discNumber: r.disc_number,
        releaseDate: r.release_date,
        genres: JSON.parse(r.genres),
        isExplicit: r.is_explicit === 1,
        isrc: r.isrc,
        hasLyrics: r.has_lyrics === 1,
        popularity: r.popularity,
        artwork: JSON.parse(r.artwork),
        previewUrl: r.preview_url,
      },
    };
  }
  return { results };
});
await app.listen({ port, host: '127.0.0.1' });
process.stdout.write('ready\n');
