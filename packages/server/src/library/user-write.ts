import { sql, type Compilable, type CompiledQuery, type QueryCreator } from 'kysely';
import type { Database, LibraryChangesTable } from '../storage/database.ts';
import { precompiledLookup, type Storage } from '../storage/storage.ts';
import { answersOf, read, statementsOf, type Answers, type Read } from '../storage/phases.ts';
import { databaseUnavailable } from '../storage/unavailable.ts';

/**
 * A user's write (contract sections 13 and 14): one transaction, in which
 * every feature that writes a user's rows (the library, history, playlists)
 * does its work with its repository bound to it, takes turns with the user's
 * other writes on any node, numbers the changes it makes in the user's feed,
 * and keeps the answer that reports it (`beforeCommit`), so that all of it
 * commits or none of it does.
 */

/** How long the change feed keeps a change, and a cursor stays good. */
export const CHANGES_KEPT_DAYS = 90;
export const CHANGES_KEPT_MS = CHANGES_KEPT_DAYS * 24 * 3600 * 1000;

type ChangeKind = LibraryChangesTable['kind'];
type ChangeType = LibraryChangesTable['change'];

/** A change about to be recorded. */
export interface NewChange {
  readonly kind: ChangeKind;
  readonly id: string;
  readonly change: ChangeType;
}


/**
 * What a write to a user's library (saves, follows, plays, progress,
 * playlists) does in its transaction: it reads what it needs (`read`: the
 * reads of one call go together, on PostgreSQL in one round trip, and the
 * first call's go with taking the user's turn), decides, and writes
 * (`write`: statements whose answers it does not need, sent with its next
 * reads or with its end, in the order written). Besides its own rows, it
 * records the changes the feed lists. (The feed's old ones are forgotten by
 * library/retention.ts, off the write's path.)
 */
export interface UserWriteSession {
  /** The user the write is for. */
  readonly userId: string;
  /** Runs these reads together, after every statement written before them; answers each one's answer. */
  read<R extends readonly Read<unknown>[]>(...reads: R): Promise<Answers<R>>;
  /** Statements whose answers the write does not need (undefined: none), run in order before its next reads or at its end. */
  write(...statements: (CompiledQuery | Compilable<unknown> | undefined)[]): void;
  /** A change this write makes, in the order it makes them, recorded (numbered) when it ends. */
  record(change: NewChange, now: number): void;
}

/**
 * What takes the user's counter row for the rest of the transaction (made on
 * the first write; a write, so on SQLite the transaction holds the write
 * lock from here) and answers how many changes the library has had;
 * no row when there is no such user.
 *
 * On PostgreSQL it also holds the user's row (KEY SHARE) until the write
 * ends: deleting the user waits for the write, and the write's rows that
 * name the user never meet a user deleted under them (a foreign-key error,
 * or a deadlock between the delete's cascade and the write's key check).
 * SQLite's single writer keeps the delete out already.
 */
function userLock(storage: WriteStorage): (userId: string) => Read<number | undefined> {
  const lock = precompiledLookup(storage.db, (userId) => storage.db.insertInto('library_counters')
    .columns(['user_id', 'changes'])
    .expression((eb) => {
      const user = eb.selectFrom('users').select((inner) => ['id', inner.lit(0).as('changes')]).where('id', '=', userId);
      return storage.dialect === 'postgres' ? user.forKeyShare() : user;
    })
    .onConflict((oc) => oc.column('user_id').doUpdateSet((eb) => ({ changes: eb.ref('library_counters.changes') })))
    .returning('changes'));
  return (userId) => read(lock.compiled(userId), ([row]) => (row === undefined ? undefined : Number(row.changes)));
}

/** What a user's write needs of the storage. */
export type WriteStorage = Pick<Storage, 'db' | 'dialect' | 'inPhases'>;

/**
 * A statement a write makes last inside its transaction, with what it made:
 * keep the answer that reports it (http/idempotency.ts), so the two commit
 * together. It must return a row; when it returns none, `refused` is thrown
 * and the write rolls back.
 */
export interface LastStatement {
  /** The statement, built on `db`: the database, or the WITH it runs in beside the feed's changes. */
  build(db: QueryCreator<Database>): Compilable<unknown>;
  refused(): Error;
}

/** What a write makes last from its result (LastStatement). Throwing rolls the write back. */
export type BeforeCommit<T> = (result: T) => LastStatement;

/** SQLSTATE division_by_zero: what the last statement raises on PostgreSQL when it found no row (below). */
const FOUND_NOTHING = '22012';

/**
 * Runs `work` as one of the user's writes: one transaction that first takes
 * the user's counter row (`lockUser`, with the work's first reads), so
 * writes for one user take turns on any node, and what a write reads of the
 * user's rows is what it changes; its changes are numbered in commit order
 * when it ends, and `beforeCommit` runs with its result just before it
 * commits. Undefined when the user is gone. Every feature that writes a
 * user's library (this one, history, playlists, watching) writes through it.
 *
 * On PostgreSQL a write costs a round trip for each of its read calls and
 * one for its end (its last writes, the feed's changes, the answer kept and
 * COMMIT): two when it reads once (issue 56, test/storage/write-round-trips.test.ts).
 */
async function writeAsUser<T>(
  storage: WriteStorage, lockUser: ReturnType<typeof userLock>, userId: string, work: (session: UserWriteSession) => Promise<T>, beforeCommit?: BeforeCommit<T>,
): Promise<T | undefined> {
  const gone = new Error('the user is gone');
  try {
    return await storage.inPhases(async (phases) => {
      let count: number | undefined;
      let written: CompiledQuery[] = [];
      const changes: NewChange[] = [];
      let at = 0;
      /** Runs what was written, then `reads`, taking the user's turn first if not yet taken; answers the reads' rows. */
      const phase = async (reads: readonly CompiledQuery[]): Promise<unknown[][]> => {
        const lock = count === undefined ? lockUser(userId) : undefined;
        const statements = [...(lock ? [lock.statement!] : []), ...written, ...reads];
        const before = statements.length - reads.length;
        written = [];
        const results = await phases.run(statements);
        if (lock !== undefined) {
          count = lock.answer(results[0]!);
          if (count === undefined) throw gone;
        }
        return results.slice(before);
      };
      const result = await work({
        userId,
        async read(...reads) {
          const asked = statementsOf(reads);
          return answersOf(reads, asked.length > 0 || count === undefined || written.length > 0 ? await phase(asked) : []);
        },
        write(...statements) {
          // Written before the user's turn is taken, they would run in its round trip even when the user is gone.
          if (count === undefined) throw new Error('a user\'s write reads (session.read) before it writes');
          for (const statement of statements) if (statement !== undefined) written.push('compile' in statement ? statement.compile() : statement);
        },
        record(change, now) {
          changes.push(change);
          at = now;
        },
      });
      if (count === undefined) await phase([]);
      const last = beforeCommit?.(result);
      const rows = changes.map((change, i) => ({ user_id: userId, number: count! + i + 1, kind: change.kind, item_id: change.id, change: change.change, changed_at: at }));
      const counted = { changes: count! + changes.length };
      const { db } = storage;
      if (storage.dialect === 'postgres') {
        // One statement, in the round trip that commits: PostgreSQL runs an INSERT and an UPDATE inside a WITH (SQLite
        // cannot, and has no round trips). The last statement runs in it too; finding no row, it divides by zero, so the
        // transaction fails before its COMMIT instead of committing a write without its answer.
        const recorded = (creator: QueryCreator<Database>) => creator.insertInto('library_changes').values(rows);
        const lastStatement = (creator: unknown) => last!.build(creator as QueryCreator<Database>) as never;
        const found = sql<string>`1 / (select count(*) from last_statement)`.as('found');
        let end: Compilable<unknown> | undefined;
        if (rows.length > 0 && last === undefined) {
          end = db.with('recorded', recorded).updateTable('library_counters').set(counted).where('user_id', '=', userId);
        } else if (rows.length > 0) {
          // The WITH's query creator knows the CTE before it; the last statement is built on the database's tables only.
          end = db.with('recorded', recorded).with('last_statement', lastStatement)
            .updateTable('library_counters').set(counted).where('user_id', '=', userId).returning(found);
        } else if (last !== undefined) {
          end = db.with('last_statement', lastStatement).selectNoFrom(found);
        }
        try {
          await phases.commit([...written, ...(end ? [end.compile()] : [])]);
        } catch (error) {
          if (last !== undefined && (error as { code?: unknown }).code === FOUND_NOTHING) throw last.refused();
          throw error;
        }
        return result;
      }
      const statements = [...written];
      if (rows.length > 0) {
        statements.push(db.insertInto('library_changes').values(rows).compile(), db.updateTable('library_counters').set(counted).where('user_id', '=', userId).compile());
      }
      if (last !== undefined) {
        const [found] = (await phases.run([...statements, last.build(db).compile()])).slice(-1);
        if (found!.length === 0) throw last.refused();
        await phases.commit([]);
      } else {
        await phases.commit(statements);
      }
      return result;
    });
  } catch (error) {
    if (error === gone) return undefined;
    throw error;
  }
}

/**
 * A user's writes as a store scoped to one transaction (house style; the
 * model is navidrome's `WithTx`): `write` hands its work every feature's
 * repository bound to the write's transaction (`bind`, composed where the
 * features are: app.ts), so a feature asks for the repositories it uses and
 * none lends its transaction to another.
 */
export interface UserStore<Tx> {
  /** Runs `work` as one of the user's writes (writeAsUser); undefined when the user is gone. */
  write<T>(userId: string, work: (tx: Tx) => Promise<T>, beforeCommit?: BeforeCommit<T>): Promise<T | undefined>;
}

/** What a user's store needs besides the storage. */
export interface UserStoreOptions {
  /** Hears of each user whose write committed (library/retention.ts sweeps their old rows later). */
  wrote?: (userId: string) => void;
  /** How long a write waits for the user's writes before it on this node, then answers 503 (MAQAM_DB_TIMEOUT_MS); 0: as long as they take. */
  turnTimeoutMs?: number;
}

/**
 * A user's writes on this node run one after another: each takes a pooled
 * connection only when the one before has ended. They would take turns on
 * the user's row anyway (lockUser), but each waiting there holds a
 * connection: two dozen writes of one user (a client retrying, a burst of
 * plays) once held every connection of the pool while one waited for the
 * row, and every other user's requests waited (issue 56). A write that
 * waits its turn longer than the database timeout answers 503 without
 * running, as one waiting for a connection would; the next waits for the
 * write before it that did run.
 */
export function createUserStore<Tx>(storage: WriteStorage, bind: (session: UserWriteSession) => Tx, options: UserStoreOptions = {}): UserStore<Tx> {
  const { wrote = () => {}, turnTimeoutMs = 0 } = options;
  /** What a user's next write on this node waits for; gone once it has ended with none after it. */
  const turns = new Map<string, Promise<unknown>>();
  const lockUser = userLock(storage);
  return {
    async write(userId, work, beforeCommit) {
      const before = turns.get(userId);
      let ran = false;
      const run = waitTurn(before, turnTimeoutMs).then(() => {
        ran = true;
        return writeAsUser(storage, lockUser, userId, (session) => work(bind(session)), beforeCommit);
      });
      const ended: Promise<unknown> = run.then(() => {}, () => (ran ? undefined : before));
      turns.set(userId, ended);
      void ended.then(() => {
        if (turns.get(userId) === ended) turns.delete(userId);
      });
      const result = await run;
      if (result !== undefined) wrote(userId);
      return result;
    },
  };
}

/** Resolves when `before` has settled, or throws the database's 503 once `timeoutMs` has passed first. */
async function waitTurn(before: Promise<unknown> | undefined, timeoutMs: number): Promise<void> {
  if (before === undefined) return;
  if (timeoutMs <= 0) {
    await before;
    return;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => {
    timer = setTimeout(() => resolve('late'), timeoutMs);
  });
  try {
    if ((await Promise.race([before.then(() => 'ready' as const), late])) === 'late') {
      throw databaseUnavailable(new Error(`the user's earlier writes on this node took longer than ${timeoutMs} ms`));
    }
  } finally {
    clearTimeout(timer);
  }
}
