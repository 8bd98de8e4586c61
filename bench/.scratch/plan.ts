import { DatabaseSync } from 'node:sqlite';
const db = new DatabaseSync('/tmp/prof/exp2-base.db');
for (const q of [
 `explain query plan with changed (item_id, popularity) as (values (cast('album-1' as text), cast(5 as bigint)), (cast('album-2' as text), cast(7 as bigint))) update search_postings set popularity = changed.popularity from changed where search_postings.kind = 'album' and search_postings.item_id = changed.item_id and search_postings.popularity < changed.popularity`,
 `explain query plan update search_postings set popularity = changed.popularity from (select cast('album-1' as text) as item_id, cast(5 as bigint) as popularity union all select 'album-2', 7) as changed where search_postings.kind = 'album' and search_postings.item_id = changed.item_id and search_postings.popularity < changed.popularity`,
]) console.log(db.prepare(q).all());
