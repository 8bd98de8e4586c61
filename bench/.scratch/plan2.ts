import { DatabaseSync } from 'node:sqlite';
const db = new DatabaseSync('/tmp/prof/exp2-base.db');
const n = Number(process.argv[2]);
const vals = Array.from({ length: n }, (_, i) => `(cast('album-${i}' as text), cast(5 as bigint))`).join(',');
console.log(db.prepare(`explain query plan with changed (item_id, popularity) as (values ${vals}) update search_postings set popularity = changed.popularity from changed where search_postings.kind = 'album' and search_postings.item_id = changed.item_id and search_postings.popularity < changed.popularity`).all().map((r) => r.detail));
