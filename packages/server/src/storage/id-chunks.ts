/** Ids one statement names at most: bound as one value or not, the database holds the whole list while it runs. */
export const IDS_PER_STATEMENT = 5000;

/** Runs `work` over the ids a chunk at a time, in order, and answers every chunk's rows together (none for a write). */
export async function inChunks<T = never>(ids: readonly string[], work: (chunk: string[]) => Promise<readonly T[] | void>): Promise<T[]> {
  const rows: T[] = [];
  for (let i = 0; i < ids.length; i += IDS_PER_STATEMENT) {
    const answered = await work(ids.slice(i, i + IDS_PER_STATEMENT));
    if (answered) rows.push(...answered);
  }
  return rows;
}
