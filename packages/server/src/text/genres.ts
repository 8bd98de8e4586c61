/**
 * A genre as the catalog spells it: a slug, "arabic-pop", "tarab",
 * "r-and-b", "hip-hop" (the spelling of the demo catalog, the known artists
 * and the import examples of docs/api.md). Tags spell one genre many ways
 * ("Arabic Pop", "arabic_pop", "R&B", "Hip Hop"); a catalog that kept them
 * as written would hold one genre under several names. Lower case, `&` as
 * "and", apostrophes dropped, any run of other characters that are not
 * letters, marks or digits as one hyphen; Arabic stays Arabic ("بوب عربي" to
 * "بوب-عربي"). Empty when nothing of a genre is left.
 */
export function genreSlug(genre: string): string {
  return genre
    .normalize('NFKC')
    .toLowerCase()
    .replace(/['’]/g, '')
    .replace(/&/g, ' and ')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, '-')
    .replace(/^-+|-+$/g, '');
}

/** Genres as slugs, each once, in the order first given; those that leave nothing are dropped. */
export function genreSlugs(genres: readonly string[]): string[] {
  return [...new Set(genres.map(genreSlug))].filter((slug) => slug !== '');
}
