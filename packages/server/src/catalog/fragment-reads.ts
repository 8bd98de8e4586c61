import { DomainError, ERRORS, formatMessage, type ErrorReason, type MessageLocale } from '../errors.ts';
import type { Negotiation } from '../locale/negotiation.ts';
import { batchFrameBytes, listAnswer, writeBatchAnswer } from './answer-writer.ts';
import type { BufferPool } from './buffer-pool.ts';
import { NOT_CACHED, REPEATED, type FragmentCache } from './fragment-cache.ts';

const quote = JSON.stringify as (value: string) => string;

/**
 * One kind of catalog item served as cached JSON fragments `{"<member>":{...}}`:
 * how to render the ones the cache lacks, and what to answer for an unknown id.
 */
export interface FragmentKind {
  /** The member that wraps the item in a batch result and in its Get answer. */
  readonly member: string;
  /** Prefix of the cache chain, so kinds never share keys. */
  readonly chainPrefix: string;
  readonly notFound: ErrorReason;
  /** The fragments of the ids found, each behind its key (`keyed`). */
  render(ids: string[], negotiation: Negotiation): Promise<Map<string, Buffer>>;
}

/**
 * The read path every kind of catalog item is served through (songs, albums
 * and artists; shows, seasons, episodes and films): rendered once per locale
 * chain, kept in the fragment cache, and framed by the one answer writer.
 * A feature's service declares its kinds (FragmentKind) and answers through these.
 */
export function createFragmentReads({ cache, buffers }: { cache: FragmentCache; buffers: BufferPool }) {
  /** A fragment as the cache keeps it: behind its batch result key, `"<id>":`, so a Batch* answer is copies only. */
  function keyed(id: string, fragment: string): Buffer {
    return Buffer.from(`${quote(id)}:${fragment}`);
  }

  /** The length of the `"<id>":` key in front of a cached fragment. */
  function keyLength(id: string): number {
    return Buffer.byteLength(quote(id)) + 1;
  }

  function notFoundResult(kind: FragmentKind, id: string, locale: MessageLocale): Buffer {
    const message = formatMessage(ERRORS[kind.notFound].message[locale], { id });
    return keyed(id, `{"error":{"code":"ERROR_CODE_NOT_FOUND","message":${quote(message)}}}`);
  }

  /**
   * A Batch* answer as ready-to-send JSON bytes: cached per-locale fragments,
   * already behind their keys, are copied from the cache arena into one
   * buffer, and only misses touch the database. Duplicate ids are answered
   * once, in first-seen order.
   */
  async function batchGet(kind: FragmentKind, requested: readonly string[], negotiation: Negotiation): Promise<Buffer> {
    const chain = kind.chainPrefix + negotiation.chainKey;
    let entries = new Int32Array(requested.length);
    const hashes = new Int32Array(requested.length);
    const lease = cache.lease;
    const hitBytes = cache.findAll(chain, requested, entries, hashes);
    // Repeated ids: the cache told the hits apart by their entries; the misses are told apart here, by their hashes
    // in a small table (ids compared only when two hashes are equal): a Set hashed every missed id again.
    let missing: string[] | undefined;
    let missingSeen: Int32Array | undefined;
    let repeated = false;
    for (let i = 0; i < requested.length; i++) {
      if (entries[i] === REPEATED) repeated = true;
      else if (entries[i] === NOT_CACHED) {
        const id = requested[i]!;
        const hash = hashes[i]!;
        missingSeen ??= new Int32Array(2 ** Math.ceil(Math.log2(2 * requested.length)));
        const mask = missingSeen.length - 1;
        let slot = hash & mask;
        // Each slot holds the position + 1 of a missed id.
        while (missingSeen[slot] !== 0 && !(hashes[missingSeen[slot]! - 1] === hash && requested[missingSeen[slot]! - 1] === id)) slot = (slot + 1) & mask;
        if (missingSeen[slot] !== 0) {
          entries[i] = REPEATED;
          repeated = true;
        } else {
          missingSeen[slot] = i + 1;
          (missing ??= []).push(id);
        }
      }
    }
    let ids = requested;
    if (repeated) {
      ids = requested.filter((_, i) => entries[i] !== REPEATED);
      entries = entries.filter((entry) => entry !== REPEATED);
    }
    const frame = batchFrameBytes(ids.length);
    if (missing === undefined) {
      // Every id hit: nothing awaits between the lookups and these copies, so the lease holds.
      const body = buffers.take(frame + hitBytes);
      writeBatchAnswer(body, ids.length, (i, target, at) => cache.copyTo(entries[i]!, target, at, lease));
      return body;
    }

    // The database read below yields to other requests, whose inserts can
    // evict and reuse the entries found above (and the catalog watcher can
    // clear them): copy the hits out first, into one buffer.
    const fragments: Buffer[] = new Array(ids.length);
    const hits = buffers.take(hitBytes);
    try {
      let at = 0;
      for (let i = 0; i < ids.length; i++) {
        if (entries[i] === NOT_CACHED) continue;
        const length = cache.copyTo(entries[i]!, hits, at, lease);
        fragments[i] = hits.subarray(at, at + length);
        at += length;
      }
      const version = cache.version;
      const rendered = await kind.render(missing, negotiation);
      let size = frame;
      for (let i = 0; i < ids.length; i++) {
        fragments[i] ??= rendered.get(ids[i]!) ?? notFoundResult(kind, ids[i]!, negotiation.messageLocale);
        size += fragments[i]!.length;
      }
      for (const [id, fragment] of rendered) cache.set(chain, id, fragment, version);
      const body = buffers.take(size);
      writeBatchAnswer(body, ids.length, (i, target, at) => fragments[i]!.copy(target, at));
      return body;
    } finally {
      // Every hit was copied into the body (or the request failed): nothing reads the scratch copy any more.
      buffers.give(hits);
    }
  }

  /** The fragments of these ids, in order (without their keys); undefined for an id not in the catalog (or withdrawn). */
  async function fragmentsOf(kind: FragmentKind, ids: readonly string[], negotiation: Negotiation): Promise<(Buffer | undefined)[]> {
    const chain = kind.chainPrefix + negotiation.chainKey;
    const lease = cache.lease;
    const index = cache.index(chain);
    const fragments: (Buffer | undefined)[] = new Array(ids.length);
    const missing: string[] = [];
    for (let i = 0; i < ids.length; i++) {
      const entry = index?.get(ids[i]!);
      if (entry === undefined) {
        missing.push(ids[i]!);
        continue;
      }
      // Copied now: entries are only valid until the next await.
      const copy = Buffer.allocUnsafe(cache.lengthOf(entry));
      cache.copyTo(entry, copy, 0, lease);
      fragments[i] = copy;
    }
    if (missing.length > 0) {
      const version = cache.version;
      const rendered = await kind.render([...new Set(missing)], negotiation);
      for (let i = 0; i < ids.length; i++) fragments[i] ??= rendered.get(ids[i]!);
      for (const [id, fragment] of rendered) cache.set(chain, id, fragment, version);
    }
    return fragments.map((fragment, i) => fragment?.subarray(keyLength(ids[i]!)));
  }

  async function getOne(kind: FragmentKind, id: string, negotiation: Negotiation): Promise<Buffer> {
    const [fragment] = await fragmentsOf(kind, [id], negotiation);
    if (fragment === undefined) throw new DomainError(kind.notFound, { params: { id } });
    return fragment;
  }

  /**
   * `{"<member>":[items...],"nextPageToken":"..."}` from the fragments of these
   * ids, unwrapped from `{"<kind>":` ... `}`. An item withdrawn between the
   * list query and the render is left out.
   */
  async function listBody(
    member: string,
    kind: FragmentKind,
    ids: readonly string[],
    negotiation: Negotiation,
    nextPageToken: string | undefined,
  ): Promise<Buffer> {
    const wrapper = `{"${kind.member}":`.length;
    const items = (await fragmentsOf(kind, ids, negotiation))
      .filter((fragment): fragment is Buffer => fragment !== undefined)
      .map((fragment) => fragment.subarray(wrapper, fragment.length - 1));
    return lentListAnswer(member, items, nextPageToken);
  }

  /**
   * A list answer in memory the catalog lends, like a Batch* answer's: a
   * page of songs is tens of kilobytes, and allocated afresh for every
   * request they made the old space collect every 150 ms under load
   * (bench/README.md at 9b0c7f5, "the user's library under load"). Give it back with releaseAnswer.
   */
  function lentListAnswer(member: string, items: readonly (Buffer | readonly Buffer[])[], nextPageToken: string | undefined, leading = ''): Buffer {
    return listAnswer(member, items, nextPageToken, (size) => buffers.take(size), leading);
  }


  return {
    keyed,
    batchGet,
    fragmentsOf,
    getOne,
    listBody,
    listAnswer: lentListAnswer,
    /** Gives back the memory of a lent answer once nothing reads it (its response has closed). */
    releaseAnswer: (body: Buffer) => buffers.give(body),
  };
}

export type FragmentReads = ReturnType<typeof createFragmentReads>;
