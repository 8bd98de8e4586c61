import { DatabaseSync } from 'node:sqlite';
import { rmSync } from 'node:fs';
const mode = process.argv[2]!;
const path = `/tmp/prof/micro-${mode}.db`;
for (const s of ['', '-wal', '-shm']) rmSync(path + s, { force: true });
const db = new DatabaseSync(path);
db.exec(`pragma journal_mode=wal; pragma synchronous=normal; pragma cache_size=-${process.env.CACHE ?? 16384};`);
const norowid = mode.includes('norowid');
db.exec(`create table p (word text not null, kind text not null, item_id text not null, popularity bigint not null, primary key (kind, item_id, word)) ${norowid ? 'without rowid' : ''}`);
if (!mode.includes('nowalk')) db.exec(`create index w on p (${process.env.IDX ?? 'word, popularity desc, item_id, kind'})`);
const words = Array.from({ length: 600 }, (_, i) => `word${(i * 7919) % 600}حب`);
const N = 200000, PER = 14, BATCH = Number(process.env.BATCH ?? 10000);
const rows = 7500;
const sqlText = `insert into p (word, kind, item_id, popularity) values ${Array(rows).fill('(?,?,?,?)').join(',')} ${mode.includes('plain') ? '' : 'on conflict (kind, item_id, word) do update set popularity = excluded.popularity'}`;
const stmt = db.prepare(sqlText);
let rnd = 1; const r = () => (rnd = (rnd * 48271) % 2147483647) / 2147483647;
const t = performance.now();
for (let b = 0; b < N; b += BATCH) {
  db.exec('begin');
  const buf: (string | number)[] = [];
  for (let s = b; s < b + BATCH; s++) {
    const pop = Math.floor(r() * 100);
    const ws = new Set<string>(); while (ws.size < PER) ws.add(words[Math.floor(r() * r() * words.length)]!);
    for (const w of [...ws].sort()) buf.push(w, 'song', `song-${s + 1}`, pop);
  }
  for (let i = 0; i + rows * 4 <= buf.length; i += rows * 4) stmt.run(...buf.slice(i, i + rows * 4));
  db.exec('commit');
}
console.log(mode, ((performance.now() - t) / 1000).toFixed(1), 's', N * PER, 'rows');
