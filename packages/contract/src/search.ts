import { Type, type Static } from 'typebox';
import { Album, Artist, GetRelatedArtistsQuery, Song, WITHOUT_NUL } from './catalog.ts';
import { Movie, Show } from './video.ts';

/** Contract section 11: DiscoveryService.Search. */
export const SEARCH_TYPES = ['song', 'artist', 'album', 'show', 'movie'] as const;
/** What a search without `types` looks for (section 15: video is asked for by name). */
export const DEFAULT_SEARCH_TYPES = ['song', 'artist', 'album'] as const;
export type SearchType = (typeof SEARCH_TYPES)[number];
export const SearchType = Type.Unsafe<SearchType>({ type: 'string', enum: [...SEARCH_TYPES], title: 'SearchType' });
export const MAX_QUERY_LENGTH = 200;

export const SearchQuery = Type.Object({
  q: Type.String({
    maxLength: 1000,
    pattern: WITHOUT_NUL,
    description: 'What to search for: 1 to 200 characters once trimmed. Arabic or Latin script, Arabizi, with or without hamza, article or diacritics; the last word may be half typed.',
  }),
  types: Type.Optional(Type.String({ maxLength: 100, description: 'Comma-separated subset of song, artist, album, show, movie; default song, artist, album.' })),
  ...GetRelatedArtistsQuery.properties,
});
export type SearchQuery = Static<typeof SearchQuery>;

export const SearchResult = Type.Object(
  { song: Type.Optional(Song), artist: Type.Optional(Artist), album: Type.Optional(Album), show: Type.Optional(Show), movie: Type.Optional(Movie) },
  { title: 'SearchResult', description: 'Holds exactly one of song, artist, album, show or movie.' },
);
export type SearchResult = Static<typeof SearchResult>;

export const SearchResponse = Type.Object(
  {
    results: Type.Array(SearchResult),
    nextPageToken: Type.String({ description: 'Opaque token of the next page; empty on the last page.' }),
  },
  { title: 'SearchResponse' },
);
export type SearchResponse = Static<typeof SearchResponse>;
