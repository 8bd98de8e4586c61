/**
 * The one writer of answers made of rendered items: Batch* answers
 * (`{"results":{"<id>":{...},...}}`, items already behind their keys) and
 * lists (`{"<member>":[{...},...]}`, with `"nextPageToken"` where the list
 * pages). Every Batch* operation, every list of the catalog and search frame
 * their items here, so the framing is written once.
 */

const OPEN_RESULTS = Buffer.from('{"results":{');
const CLOSE_RESULTS = Buffer.from('}}');
const COMMA = 0x2c;

/** The bytes a Batch* answer of `count` items adds to its items' own: its frame and the commas between them. */
export function batchFrameBytes(count: number): number {
  return OPEN_RESULTS.length + CLOSE_RESULTS.length + Math.max(0, count - 1);
}

/**
 * Writes a Batch* answer of `count` items into `body`, which holds
 * `batchFrameBytes(count)` plus the items' bytes: `writeItem(i, body, at)`
 * writes the i-th item at `at` and answers its length, or -1 when it cannot
 * (the answer is then abandoned: -1). Answers the bytes written.
 */
export function writeBatchAnswer(body: Buffer, count: number, writeItem: (i: number, body: Buffer, at: number) => number): number {
  let offset = OPEN_RESULTS.copy(body, 0);
  for (let i = 0; i < count; i++) {
    if (i > 0) body[offset++] = COMMA;
    const length = writeItem(i, body, offset);
    if (length === -1) return -1;
    offset += length;
  }
  return offset + CLOSE_RESULTS.copy(body, offset);
}

/** A part of a list's item: rendered bytes, or text written straight into the answer (no Buffer of its own). */
export type AnswerPart = Buffer | string;

/**
 * A list answer: `{<leading>"<member>":[<items>]}`, and `"nextPageToken"`
 * after the list when `nextPageToken` is given ('' on a last page that says
 * so). `leading` is members written before the list, each followed by a comma
 * (`"version":"3",`). An item may come in parts (a rendered item and members
 * around it), copied once, into the answer, whose memory `allocate` gives (a
 * lent block: catalog.service.ts `listAnswer`).
 */
export function listAnswer(
  member: string,
  items: readonly (AnswerPart | readonly AnswerPart[])[],
  nextPageToken: string | undefined,
  allocate: (size: number) => Buffer = Buffer.allocUnsafe,
  leading = '',
): Buffer {
  const parts: AnswerPart[] = [`{${leading}${JSON.stringify(member)}:[`];
  items.forEach((item, i) => {
    if (i > 0) parts.push(',');
    if (typeof item === 'string' || Buffer.isBuffer(item)) parts.push(item);
    else parts.push(...item);
  });
  parts.push(nextPageToken === undefined ? ']}' : `],"nextPageToken":${JSON.stringify(nextPageToken)}}`);
  let size = 0;
  for (const part of parts) size += typeof part === 'string' ? Buffer.byteLength(part) : part.length;
  const answer = allocate(size);
  let at = 0;
  for (const part of parts) at += typeof part === 'string' ? answer.write(part, at) : part.copy(answer, at);
  return answer;
}
