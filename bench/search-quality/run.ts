// bench/search-quality: does the wanted item come up in the first five
// results? For each query of catalog.ts (grouped by the rule of contract
// section 11 that should find it), on the same catalog: Maqam (GET /v1/search
// on SQLite, as served), MiniSearch 7 (prefix + fuzzy 0.2, OR) and Orama 3
// (defaults) as the baselines people use today. Prints the share found per
// rule and overall, and the queries Maqam misses.
//
//   npm run bench:search-quality      (exit status 1 if Maqam misses a query of rules 1 to 4)
import { maqamEngine, miniSearchEngine, oramaEngine, type Engine } from './engines.ts';
import { QUALITY_QUERIES, QUALITY_RECORDS, RULES } from './catalog.ts';

const maqam = await maqamEngine();
const engines: [string, Engine][] = [['Maqam', maqam.engine], ['MiniSearch 7 (prefix + fuzzy)', miniSearchEngine()], ['Orama 3 (defaults)', await oramaEngine()]];
const found = new Map<string, Map<number, number>>();
const misses: string[] = [];
for (const [name, engine] of engines) {
  const byRule = new Map<number, number>();
  for (const query of QUALITY_QUERIES) {
    const top = await engine(query.q);
    if (top.includes(query.want)) byRule.set(query.rule, (byRule.get(query.rule) ?? 0) + 1);
    else if (name === 'Maqam') misses.push(`rule ${query.rule}: "${query.q}" wanted ${query.want}, got ${top.join(', ') || 'nothing'}`);
  }
  found.set(name, byRule);
}
await maqam.close();

const percent = (n: number, of: number) => `${Math.round((100 * n) / of)}%`;
console.log(`${QUALITY_QUERIES.length} queries over ${QUALITY_RECORDS.length} records; found in the first 5 results:\n`);
console.log(`| rule | queries | ${engines.map(([name]) => name).join(' | ')} |`);
console.log(`|---|---|${engines.map(() => '---').join('|')}|`);
for (const [rule, title] of Object.entries(RULES).map(([r, t]) => [Number(r), t] as const)) {
  const count = QUALITY_QUERIES.filter((query) => query.rule === rule).length;
  console.log(`| ${rule}. ${title} | ${count} | ${engines.map(([name]) => percent(found.get(name)!.get(rule) ?? 0, count)).join(' | ')} |`);
}
const total = (name: string) => [...found.get(name)!.values()].reduce((a, b) => a + b, 0);
console.log(`| all | ${QUALITY_QUERIES.length} | ${engines.map(([name]) => `**${percent(total(name), QUALITY_QUERIES.length)}**`).join(' | ')} |`);
if (misses.length > 0) console.log(`\nMaqam's misses:\n${misses.map((m) => `- ${m}`).join('\n')}`);
if (misses.some((miss) => /^rule [1-4]:/.test(miss))) process.exitCode = 1;
