// The words of the Watch pages (shows, seasons, episodes, films), in Arabic
// and English; texts.ts adds them to the rest. Titles, descriptions, names
// and roles come from the API instead.
import type { AgeRating } from '@maqam/sdk';
import { iso } from './bidi.ts';

const arabicPlural = new Intl.PluralRules('ar');

/** A count in Arabic's six forms: [one, two, few (3 to 10), many (11 to 99), other (100, 0)], `n` written as the page writes its digits. */
const arabicCount = (count: number, n: string, [one, two, few, many, other]: readonly [string, string, string, string, string]) =>
  ({ zero: `${n} ${other}`, one, two, few: `${n} ${few}`, many: `${n} ${many}`, other: `${n} ${other}` })[arabicPlural.select(count)]!;

export interface VideoTexts {
  /** The Watch home, as the sections name it. */
  watch: string;
  series: string;
  films: string;
  forTheFamily: string;
  documentaries: string;
  showsAndFilms: string;
  /** What a title is, on its card and above its name. */
  kindShow: string;
  kindMovie: string;
  ramadanSeries: string;
  showDetails: string;
  movieDetails: string;
  seasonCount: (count: number, n: string) => string;
  episodeCount: (count: number, n: string) => string;
  season: (n: string) => string;
  seasons: string;
  episodes: string;
  moreEpisodes: string;
  noEpisodes: string;
  starring: (names: string) => string;
  guestStars: (names: string) => string;
  cast: string;
  /** A cast member's link: the titles a search finds by their name. */
  titlesWith: (name: string) => string;
  songsFromShow: string;
  songsFromMovie: string;
  audio: string;
  subtitles: string;
  /** The age rating's badge, and what it means in words. */
  ageRatings: Record<AgeRating, string>;
  ageRatingsLong: Record<AgeRating, string>;
  notRated: string;
  /** Genres as the catalog names them (a word in English), in the page's language; others are shown as they come. */
  genres: Record<string, string>;
  titleMissing: string;
  titleMissingHint: string;
  browseTitles: string;
  noTitles: string;
}

export const VIDEO_TEXT: Record<'ar' | 'en', VideoTexts> = {
  ar: {
    watch: 'أفلام ومسلسلات',
    series: 'مسلسلات',
    films: 'أفلام',
    forTheFamily: 'للعائلة كلها',
    documentaries: 'وثائقيات',
    showsAndFilms: 'مسلسلات وأفلام',
    kindShow: 'مسلسل',
    kindMovie: 'فيلم',
    ramadanSeries: 'مسلسل رمضاني',
    showDetails: 'الحلقات والتفاصيل',
    movieDetails: 'عن الفيلم',
    seasonCount: (count, n) => arabicCount(count, n, ['موسم واحد', 'موسمان', 'مواسم', 'موسمًا', 'موسم']),
    episodeCount: (count, n) => arabicCount(count, n, ['حلقة واحدة', 'حلقتان', 'حلقات', 'حلقة', 'حلقة']),
    season: (n) => `الموسم ${n}`,
    seasons: 'المواسم',
    episodes: 'الحلقات',
    moreEpisodes: 'حلقات أخرى',
    noEpisodes: 'لا حلقات في هذا الموسم بعد.',
    starring: (names) => `بطولة ${names}`,
    guestStars: (names) => `ضيوف الحلقة: ${names}`,
    cast: 'طاقم العمل',
    titlesWith: (name) => `أعمال ${iso(name)}`,
    songsFromShow: 'أغاني المسلسل',
    songsFromMovie: 'أغاني الفيلم',
    audio: 'الصوت',
    subtitles: 'الترجمة',
    ageRatings: { AGE_RATING_ALL: 'للجميع', AGE_RATING_7: '+٧', AGE_RATING_13: '+١٣', AGE_RATING_16: '+١٦', AGE_RATING_18: '+١٨' },
    ageRatingsLong: {
      AGE_RATING_ALL: 'مناسب لجميع الأعمار', AGE_RATING_7: 'لسن السابعة فما فوق', AGE_RATING_13: 'لسن الثالثة عشرة فما فوق',
      AGE_RATING_16: 'لسن السادسة عشرة فما فوق', AGE_RATING_18: 'للكبار: لسن الثامنة عشرة فما فوق',
    },
    notRated: 'غير مصنّف',
    genres: {
      drama: 'دراما', ramadan: 'رمضان', family: 'عائلي', comedy: 'كوميديا', khaleeji: 'خليجي', documentary: 'وثائقي', history: 'تاريخ',
      travel: 'سفر', music: 'موسيقى', kids: 'أطفال', animation: 'رسوم متحركة', adventure: 'مغامرة', thriller: 'تشويق', crime: 'جريمة',
      romance: 'رومانسي', classic: 'كلاسيكي', action: 'أكشن',
    },
    titleMissing: 'هذا العمل غير متاح',
    titleMissingHint: 'ربما سُحب من الكتالوج، أو أنه خارج ما يسمح به حسابك.',
    browseTitles: 'تصفّح الأفلام والمسلسلات',
    noTitles: 'لا أفلام ولا مسلسلات في هذا الكتالوج بعد.',
  },
  en: {
    watch: 'Watch',
    series: 'Series',
    films: 'Films',
    forTheFamily: 'For the whole family',
    documentaries: 'Documentaries',
    showsAndFilms: 'Shows and films',
    kindShow: 'Series',
    kindMovie: 'Film',
    ramadanSeries: 'Ramadan series',
    showDetails: 'Episodes and details',
    movieDetails: 'About the film',
    seasonCount: (count, n) => (count === 1 ? '1 season' : `${n} seasons`),
    episodeCount: (count, n) => (count === 1 ? '1 episode' : `${n} episodes`),
    season: (n) => `Season ${n}`,
    seasons: 'Seasons',
    episodes: 'Episodes',
    moreEpisodes: 'More episodes',
    noEpisodes: 'No episodes in this season yet.',
    starring: (names) => `Starring ${names}`,
    guestStars: (names) => `Guest stars: ${names}`,
    cast: 'Cast and crew',
    titlesWith: (name) => `Titles with ${iso(name)}`,
    songsFromShow: 'Songs from this series',
    songsFromMovie: 'Songs from this film',
    audio: 'Audio',
    subtitles: 'Subtitles',
    ageRatings: { AGE_RATING_ALL: 'All', AGE_RATING_7: '7+', AGE_RATING_13: '13+', AGE_RATING_16: '16+', AGE_RATING_18: '18+' },
    ageRatingsLong: {
      AGE_RATING_ALL: 'Suitable for all ages', AGE_RATING_7: 'For ages 7 and up', AGE_RATING_13: 'For ages 13 and up',
      AGE_RATING_16: 'For ages 16 and up', AGE_RATING_18: 'Adults only: ages 18 and up',
    },
    notRated: 'Not rated',
    genres: {
      drama: 'Drama', ramadan: 'Ramadan', family: 'Family', comedy: 'Comedy', khaleeji: 'Khaleeji', documentary: 'Documentary', history: 'History',
      travel: 'Travel', music: 'Music', kids: 'Kids', animation: 'Animation', adventure: 'Adventure', thriller: 'Thriller', crime: 'Crime',
      romance: 'Romance', classic: 'Classic', action: 'Action',
    },
    titleMissing: 'This title is not available',
    titleMissingHint: 'It may have left the catalog, or be outside what your account allows.',
    browseTitles: 'Browse shows and films',
    noTitles: 'No shows or films in this catalog yet.',
  },
};
