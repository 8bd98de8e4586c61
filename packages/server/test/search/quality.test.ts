// The search-quality bench as a check: the queries of rules 1 to 4 of
// contract section 11 must all find what they mean in the first five
// results, and at least 95% of all queries must. (`npm run
// bench:search-quality` prints the full table beside MiniSearch and Orama.)
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUALITY_QUERIES } from '../../../../bench/search-quality/catalog.ts';
import { maqamEngine, type Engine } from '../../../../bench/search-quality/engines.ts';

describe('search quality on the bench catalog of well-known artists and songs', () => {
  let maqam: { engine: Engine; close(): Promise<void> };
  beforeAll(async () => {
    maqam = await maqamEngine();
  });
  afterAll(async () => maqam?.close());

  it.each(QUALITY_QUERIES.filter((query) => query.rule <= 4).map((query) => [query.rule, query.q, query.want] as const))(
    'rule %i: "%s" finds %s in the first five',
    async (_rule, q, want) => {
      expect(await maqam.engine(q)).toContain(want);
    },
  );

  it('finds at least 95% of all the queries in the first five', async () => {
    let found = 0;
    for (const query of QUALITY_QUERIES) if ((await maqam.engine(query.q)).includes(query.want)) found++;
    expect(found / QUALITY_QUERIES.length).toBeGreaterThanOrEqual(0.95);
  });
});
