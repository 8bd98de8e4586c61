import { AGE_RATINGS, type AgeRating } from '@maqam/contract';
import type { Principal } from '../principal.ts';

/**
 * Parental caps (contract section 15), the one rule every surface applies:
 * a title is admitted to a viewer when its rank is at most the viewer's cap.
 * Ranks order AGE_RATINGS (AGE_RATING_ALL 0 .. AGE_RATING_18 4). A show or
 * film with no rating ranks as AGE_RATING_18; an episode ranks as the higher
 * of its own rating and its show's (its own is 0 when it has none). A viewer
 * without a cap (an API key, a user the operator set none for) has the
 * highest cap, which admits every title, so reads need no second path.
 */

/** A viewer's cap: the highest rank admitted. */
export type ViewerCap = number;

export const UNRATED_RANK = AGE_RATINGS.length - 1;
/** The cap of a viewer without one: every title is admitted. */
export const NO_CAP: ViewerCap = UNRATED_RANK;

/** The rank of a show's or film's rating; unrated ranks as AGE_RATING_18. */
export function titleRank(rating: AgeRating | null | undefined): number {
  return rating == null ? UNRATED_RANK : AGE_RATINGS.indexOf(rating);
}

/** The rank of an episode's own rating: 0 when it has none, so its show's decides. */
export function episodeOwnRank(rating: AgeRating | null | undefined): number {
  return rating == null ? 0 : AGE_RATINGS.indexOf(rating);
}

/** The cap of a user whose stored max_age_rating is this (null: none). */
export function capOf(maxAgeRating: string | null | undefined): ViewerCap {
  const rank = maxAgeRating == null ? -1 : AGE_RATINGS.indexOf(maxAgeRating as AgeRating);
  return rank === -1 ? NO_CAP : rank;
}

/** Whether a title of these ranks (an episode: its own and its show's) is admitted under the cap. */
export function admits(cap: ViewerCap, ...ranks: readonly number[]): boolean {
  return ranks.every((rank) => rank <= cap);
}

export function isAgeRating(value: string): value is AgeRating {
  return (AGE_RATINGS as readonly string[]).includes(value);
}

/** The cap a request's principal reads under: its user's, or none (an API key has no user). */
export function viewerCapOf(principal: Principal | null): ViewerCap {
  return principal?.kind === 'token' ? capOf(principal.maxAgeRating) : NO_CAP;
}
