// Text of either direction inside a sentence of the other.

/**
 * A name or title set apart from the sentence around it (Unicode's first
 * strong isolate): an English title inside an Arabic sentence, or the
 * reverse, keeps its own direction and does not reorder its neighbours.
 */
export const iso = (text: string) => `\u2068${text}\u2069`;
