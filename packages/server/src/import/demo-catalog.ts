import type { ImportSummary } from '@maqam/contract';
import type { Storage } from '../storage/storage.ts';
import { addToSummary, DEFAULT_BATCH_SIZE, emptyImportSummary, runImport } from './import.ts';
import { ImportBatch } from './import-batch.ts';
import { KNOWN_ARTIST_NAMES, knownArtistRecords } from './known-artists.ts';
import { demoVideoRecords, demoVideoSize } from './demo-video.ts';
import type { AlbumRecord, AlbumType, ArtistRecord, ImportRecord, LyricsRecord, RelatedRecord, SongRecord } from '@maqam/contract';

/**
 * A generated Arabic-first demo catalog, the same for the same seed: Arabic
 * artists and songs with Latin transliterations, plus some English- and
 * French-origin content, and a video catalog (demo-video.ts). Sizes scale
 * with the song count (2,000 artists, 5,000 albums, 100 shows and 200 films
 * per 50,000 songs, besides the video's curated titles).
 */

/** mulberry32: small, fast and good enough to make demo data (and tests' load) repeatable. */
export function seededRandom(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(list: readonly T[]): T => list[Math.floor(next() * list.length)]!,
    chance: (p: number) => next() < p,
  };
}

type Pair = readonly [arabic: string, latin: string];

const FIRST_NAMES: Pair[] = [
  ['محمد', 'Mohamed'], ['عمرو', 'Amr'], ['تامر', 'Tamer'], ['وائل', 'Wael'], ['كاظم', 'Kadim'], ['نانسي', 'Nancy'],
  ['هيفاء', 'Haifa'], ['إليسا', 'Elissa'], ['شيرين', 'Sherine'], ['أنغام', 'Angham'], ['فيروز', 'Fairuz'], ['ماجد', 'Majid'],
  ['راشد', 'Rashed'], ['عبدالله', 'Abdullah'], ['سميرة', 'Samira'], ['لطيفة', 'Latifa'], ['أصالة', 'Assala'], ['ديانا', 'Diana'],
  ['بلقيس', 'Balqees'], ['رحمة', 'Rahma'], ['يارا', 'Yara'], ['نوال', 'Nawal'], ['جورج', 'George'], ['وليد', 'Walid'],
  ['ملحم', 'Melhem'], ['صابر', 'Saber'], ['حمزة', 'Hamza'], ['عمر', 'Omar'], ['ليلى', 'Layla'], ['سلمى', 'Salma'],
  ['منى', 'Mona'], ['رامي', 'Rami'], ['زياد', 'Ziad'], ['كريم', 'Karim'], ['هاني', 'Hani'], ['نور', 'Nour'],
  ['مروان', 'Marwan'], ['حسين', 'Hussein'], ['أحمد', 'Ahmed'], ['ريم', 'Reem'], ['فادي', 'Fadi'], ['دينا', 'Dina'],
];
const FAMILY_NAMES: Pair[] = [
  ['دياب', 'Diab'], ['حسني', 'Hosny'], ['الساهر', 'Al Sahir'], ['المهندس', 'Al Mohandes'], ['الجسمي', 'Al Jassmi'],
  ['كفوري', 'Kfoury'], ['عجرم', 'Ajram'], ['الأطرش', 'Al Atrash'], ['الرويشد', 'Al Ruwaished'], ['الحلاني', 'Al Hallani'],
  ['منصور', 'Mansour'], ['الشامي', 'Al Shami'], ['المصري', 'Al Masri'], ['حداد', 'Haddad'], ['خوري', 'Khoury'],
  ['سعد', 'Saad'], ['فؤاد', 'Fouad'], ['نجم', 'Najm'], ['قاسم', 'Qasem'], ['الخياط', 'Al Khayat'], ['يوسف', 'Youssef'],
  ['جابر', 'Jaber'], ['عطية', 'Attia'], ['صالح', 'Saleh'], ['ناصر', 'Nasser'], ['الحسن', 'Al Hassan'], ['بدر', 'Badr'],
  ['الرحباني', 'Rahbani'], ['عبدالوهاب', 'Abdel Wahab'], ['الموجي', 'El Mougy'],
];
const BANDS: Pair[] = [
  ['فرقة مشروع ليلى', 'Mashrou\u0027 Leila'], ['كايروكي', 'Cairokee'], ['أوتوستراد', 'Autostrad'], ['جدل', 'JadaL'],
  ['الدور الأول', 'El Dor El Awal'], ['مسار إجباري', 'Massar Egbari'], ['شارموفرز', 'Sharmoofers'], ['أدونيس', 'Adonis'],
];
const TITLE_WORDS: Pair[] = [
  ['حبيبي', 'Habibi'], ['قلبي', 'Albi'], ['يا ليل', 'Ya Leil'], ['عيونك', 'Oyounak'], ['سهران', 'Sahran'], ['بحبك', 'Bahebak'],
  ['نور العين', 'Nour El Ein'], ['تملي معاك', 'Tamally Maak'], ['على بالي', 'Ala Bali'], ['وحشتني', 'Wahashtini'],
  ['الليلة', 'El Leila'], ['يا عمري', 'Ya Omri'], ['ليالي', 'Layali'], ['أنا وياك', 'Ana Wayak'], ['حكاية', 'Hekaya'],
  ['غرام', 'Gharam'], ['شوق', 'Shoq'], ['بعدك', 'Baadak'], ['سلام', 'Salam'], ['يا قمر', 'Ya Amar'], ['زمان', 'Zaman'],
  ['حلم', 'Helm'], ['بلادي', 'Biladi'], ['أمل', 'Amal'], ['دنيا', 'Donya'], ['روحي', 'Rohi'], ['شمس', 'Shams'],
  ['بحر', 'Bahr'], ['سما', 'Sama'], ['ورد', 'Ward'], ['مشتاق', 'Meshtaq'], ['صباح الخير', 'Sabah El Kheir'],
];
const ENGLISH_FIRST = ['Maya', 'Adam', 'Lina', 'Sami', 'Zara', 'Leo', 'Nadia', 'Jad', 'Mira', 'Elias', 'Ruby', 'Owen', 'Iris', 'Theo', 'June', 'Felix', 'Clara', 'Max', 'Luna', 'Ezra'];
const ENGLISH_LAST = ['Stone', 'Rivers', 'Hayes', 'Cole', 'Grey', 'Wells', 'Knight', 'Vale', 'Fox', 'Shaw', 'Reed', 'Lane'];
const ENGLISH_WORDS = ['Midnight', 'City', 'Desert', 'Rain', 'Golden', 'Echoes', 'Lights', 'Home', 'Wild', 'Heart', 'Summer', 'Road'];
const FRENCH_FIRST = ['Camille', 'Julien', 'Amira', 'Louis', 'Inès', 'Hugo', 'Yasmine', 'Chloé', 'Manon', 'Théo', 'Léa', 'Nassim', 'Zoé', 'Rayan', 'Lucie', 'Malik'];
const FRENCH_LAST = ['Dubois', 'Laurent', 'Benali', 'Moreau', 'Haddad', 'Lefèvre', 'Mansouri', 'Girard', 'Roux', 'Fontaine'];
const FRENCH_WORDS = ['Le Ciel', 'de Paris', 'Mon Cœur', 'La Nuit', 'Toujours', "L'Amour", 'Soleil', 'Sous la Pluie', 'Mirage'];

const ARABIC_GENRES = ['arabic-pop', 'tarab', 'khaleeji', 'mahraganat', 'rai', 'shaabi', 'dabke', 'sufi', 'arabic-hip-hop', 'arabic-indie'];
const WESTERN_GENRES = ['pop', 'rock', 'chanson', 'jazz', 'electronic', 'indie', 'r-and-b'];
const NATIONALITIES = ['EG', 'LB', 'SA', 'AE', 'IQ', 'SY', 'MA', 'DZ', 'TN', 'JO', 'KW', 'PS'];

type Origin = 'ar' | 'en' | 'fr';

export interface DemoCatalogOptions {
  songs?: number;
  seed?: number;
  /**
   * Songs that will get a demo audio clip, with the clip's length in ms: their
   * duration is the clip's, and their lyrics are time-synced to it.
   */
  clips?: Readonly<Record<string, number>>;
  /**
   * Also the artists people try first (known-artists.ts), after the
   * generated catalog; their songs last `clips[id]` ms, else three minutes.
   */
  knownArtists?: boolean;
  /**
   * Also the video catalog (demo-video.ts), after the music: shows with their
   * seasons and episodes, and films, whose soundtracks list the catalog's
   * songs (the known artists' when they are in it). Default true; its random
   * stream is its own, so the music's records are the same either way.
   */
  video?: boolean;
}

export function demoCatalogSize(songs = 50_000) {
  return {
    songs,
    artists: Math.max(10, Math.round((songs * 2000) / 50_000)),
    albums: Math.max(10, Math.round((songs * 5000) / 50_000)),
    ...demoVideoSize(songs),
  };
}

const pad = (n: number, width: number) => String(n).padStart(width, '0');

/** The server draws the demo's covers and portraits (catalog/artwork.ts); relative URLs resolve against MAQAM_PUBLIC_URL. */
function artwork(kind: 'artists' | 'albums', id: string) {
  return [{ url: `/artwork/${kind}/${encodeURIComponent(id)}.svg`, width: 300, height: 300 }];
}

const LABELS = ['Rotana', 'Mazzika', 'Platinum Records', 'Voice of Beirut', 'Relax-In', 'Sawt El Fan', 'Mistika', 'Watary', ''];

/** Lyric lines for the demo: Arabic verses for Arabic songs, English otherwise. */
const ARABIC_VERSES = [
  'يا ليل طوّل شوية', 'والقمر ساهر معايا', 'قلبي بيسأل عليك', 'وعيوني مستنية', 'كل ما أقول أنساك', 'ترجع تاني في بالي',
  'يا حبيبي تعالى', 'الدنيا من غيرك ليل', 'صوتك لسه في وداني', 'وأنا لسه على الوعد', 'نور عيني يا غالي', 'والشوق بيندهلك',
];
const ENGLISH_VERSES = [
  'Lights over the city', 'Driving through the rain', 'Call my name tonight', 'Golden hours fading', 'We were young and wild',
  'Echoes in the desert', 'Hold on to the summer', 'Every road leads home',
];

function lyricLines(origin: Origin, random: ReturnType<typeof seededRandom>, count: number): string[] {
  const verses = origin === 'ar' ? ARABIC_VERSES : ENGLISH_VERSES;
  return Array.from({ length: count }, () => random.pick(verses));
}

const lrcTime = (ms: number) => {
  const centis = Math.round(ms / 10);
  return `[${pad(Math.floor(centis / 6000), 2)}:${pad(Math.floor(centis / 100) % 60, 2)}.${pad(centis % 100, 2)}]`;
};

/** LRC lines spread over `durationMs`, the first after a short intro. */
function lrcOver(lines: readonly string[], durationMs: number): string {
  const step = Math.floor(durationMs / (lines.length + 1));
  return lines.map((line, i) => `${lrcTime(Math.min(durationMs - 500, 500 + i * step))}${line}`).join('\n');
}

/** Artist names given so far, by their Latin form. */
class TakenNames {
  readonly #names = new Set<string>();

  get size(): number {
    return this.#names.size;
  }

  /** True, and the name is now taken, when no artist had it; the known artists' names are never given (known-artists.ts). */
  claim(name: string): boolean {
    if (this.#names.has(name) || KNOWN_ARTIST_NAMES.has(name)) return false;
    this.#names.add(name);
    return true;
  }
}

/** Fathers' names for the three-part names that tell apart two artists of the same first and family name. */
const FATHER_NAMES = FIRST_NAMES.filter(([, latin]) =>
  ['Mohamed', 'Amr', 'Tamer', 'Wael', 'Kadim', 'Majid', 'Rashed', 'Abdullah', 'George', 'Walid', 'Melhem', 'Saber', 'Hamza', 'Omar',
    'Rami', 'Ziad', 'Karim', 'Hani', 'Marwan', 'Hussein', 'Ahmed', 'Fadi'].includes(latin));

/**
 * A demo artist's Arabic name, distinct from every earlier one: first and
 * family name as drawn, else with a father's name between them (the way
 * Arabic full names tell people apart), else a father's name and another
 * family name. The catalog reads like a real one instead of repeating a few
 * dozen names; past about 27,000 Arabic artists (the 1M-song catalog has
 * more) names repeat.
 */
function arabicName(taken: TakenNames, first: Pair, family: Pair): Pair {
  if (taken.claim(`${first[1]} ${family[1]}`)) return [`${first[0]} ${family[0]}`, `${first[1]} ${family[1]}`];
  const start = FAMILY_NAMES.indexOf(family);
  // Fathers taken in turn from a point that moves with each name, so the same few are not given first every time.
  const offset = taken.size;
  for (let step = 0; step < FAMILY_NAMES.length; step++) {
    const last = FAMILY_NAMES[(start + step) % FAMILY_NAMES.length]!;
    for (let turn = 0; turn < FATHER_NAMES.length; turn++) {
      const father = FATHER_NAMES[(offset + turn) % FATHER_NAMES.length]!;
      if (father === first) continue;
      if (taken.claim(`${first[1]} ${father[1]} ${last[1]}`)) return [`${first[0]} ${father[0]} ${last[0]}`, `${first[1]} ${father[1]} ${last[1]}`];
    }
  }
  return [`${first[0]} ${family[0]}`, `${first[1]} ${family[1]}`];
}

/** A demo artist's English or French name, distinct from every earlier one: as drawn, else another last name, else a middle initial. */
function latinName(taken: TakenNames, first: string, last: string, lasts: readonly string[]): string {
  const start = lasts.indexOf(last);
  const rotated = lasts.map((_, step) => lasts[(start + step) % lasts.length]!);
  for (const other of rotated) if (taken.claim(`${first} ${other}`)) return `${first} ${other}`;
  for (const initial of 'ABCDEFGHIJKLMNOPRSTVW') {
    for (const other of rotated) if (taken.claim(`${first} ${initial}. ${other}`)) return `${first} ${initial}. ${other}`;
  }
  return `${first} ${last}`;
}

/** Yields the demo catalog as import records: artists, then albums, songs and related edges. */
export function* generateDemoCatalog(options: DemoCatalogOptions = {}): Generator<ImportRecord> {
  const size = demoCatalogSize(options.songs);
  const random = seededRandom(options.seed ?? 1);
  const origins: Origin[] = [];
  const genresOf: string[][] = [];
  const takenNames = new TakenNames();
  // Generated Arabic songs the video's soundtracks may list (a few hundred are plenty).
  const soundtrackPool: string[] = [];

  for (let i = 0; i < size.artists; i++) {
    const id = `artist-${i + 1}`;
    const roll = random.next();
    const origin: Origin = roll < 0.8 ? 'ar' : roll < 0.92 ? 'en' : 'fr';
    origins.push(origin);
    let name: Record<string, string>;
    let bio: Record<string, string>;
    if (origin === 'ar') {
      const band = random.chance(0.08) ? random.pick(BANDS) : undefined;
      const [arabic, latin] = band !== undefined && takenNames.claim(band[1])
        ? band
        // A band already on the catalog makes way for a person, chosen by the artist's number (the random stream stays as it was).
        : arabicName(takenNames, band === undefined ? random.pick(FIRST_NAMES) : FIRST_NAMES[i % FIRST_NAMES.length]!,
          band === undefined ? random.pick(FAMILY_NAMES) : FAMILY_NAMES[(i * 7) % FAMILY_NAMES.length]!);
      name = { ar: arabic, en: latin };
      bio = { ar: `${arabic} فنان عربي يقدّم ${random.pick(['الطرب', 'البوب', 'الأغنية الشعبية', 'الموسيقى البديلة'])}.`, en: `${latin} is an Arab artist.` };
    } else if (origin === 'en') {
      const latin = latinName(takenNames, random.pick(ENGLISH_FIRST), random.pick(ENGLISH_LAST), ENGLISH_LAST);
      name = { en: latin };
      bio = { en: `${latin} writes and sings in English.`, ar: `${latin} فنان يغني بالإنجليزية.` };
    } else {
      const latin = latinName(takenNames, random.pick(FRENCH_FIRST), random.pick(FRENCH_LAST), FRENCH_LAST);
      name = { fr: latin };
      bio = { fr: `${latin} chante en français.`, en: `${latin} sings in French.` };
    }
    const genres = origin === 'ar'
      ? [random.pick(ARABIC_GENRES), ...(random.chance(0.4) ? [random.pick(ARABIC_GENRES)] : [])]
      : [random.pick(WESTERN_GENRES)];
    const uniqueGenres = [...new Set(genres)];
    genresOf.push(uniqueGenres);
    const followers = Math.floor(10 ** (2 + random.next() * 5.5));
    const artist: ArtistRecord = {
      kind: 'artist',
      id,
      name,
      originalLanguage: origin,
      bio,
      genres: uniqueGenres,
      followerCount: String(followers),
      monthlyListeners: String(Math.floor(followers * (0.2 + random.next()))),
      isVerified: followers > 100_000 || random.chance(0.1),
      socialLinks: random.chance(0.7) ? [{ platform: 'instagram', url: `https://instagram.com/${id}` }] : [],
      artwork: artwork('artists', id),
      nationality: origin === 'ar' ? random.pick(NATIONALITIES) : origin === 'en' ? random.pick(['GB', 'US', 'CA']) : 'FR',
    };
    yield artist;
  }

  // Album types first (on their own random stream), then which album each song is on, so a single has
  // one or two tracks and an album eight or more: every album gets one song, then the slots of its type.
  const placement = seededRandom((options.seed ?? 1) + 1);
  const albumTypes: AlbumType[] = [];
  const slots: number[] = [];
  const bigAlbums: number[] = [];
  for (let i = 0; i < size.albums; i++) {
    const roll = placement.next();
    const type: AlbumType = roll < 0.2 ? 'ALBUM_TYPE_SINGLE' : roll < 0.35 ? 'ALBUM_TYPE_EP' : roll < 0.95 ? 'ALBUM_TYPE_ALBUM' : 'ALBUM_TYPE_COMPILATION';
    albumTypes.push(type);
    const target = type === 'ALBUM_TYPE_SINGLE' ? placement.int(1, 2) : type === 'ALBUM_TYPE_EP' ? placement.int(3, 6) : placement.int(8, 16);
    for (let n = 1; n < target; n++) slots.push(i);
    if (target >= 8) bigAlbums.push(i);
  }
  for (let i = slots.length - 1; i > 0; i--) {
    const j = placement.int(0, i);
    [slots[i], slots[j]] = [slots[j]!, slots[i]!];
  }
  const songAlbum = new Uint32Array(size.songs);
  for (let i = 0; i < size.songs; i++) {
    const extra = i - size.albums;
    songAlbum[i] = extra < 0 ? i : extra < slots.length ? slots[extra]! : placement.pick(bigAlbums.length > 0 ? bigAlbums : [0]);
  }

  const albumArtist: number[] = [];
  const albumDate: string[] = [];
  for (let i = 0; i < size.albums; i++) {
    const id = `album-${i + 1}`;
    const artistIndex = i < size.artists ? i : random.int(0, size.artists - 1);
    albumArtist.push(artistIndex);
    const origin = origins[artistIndex]!;
    const date = `${random.int(1960, 2026)}-${pad(random.int(1, 12), 2)}-${pad(random.int(1, 28), 2)}`;
    albumDate.push(date);
    const albumType = albumTypes[i]!;
    const album: AlbumRecord = {
      kind: 'album',
      id,
      title: titleFor(origin, random),
      originalLanguage: origin,
      artistIds: [`artist-${artistIndex + 1}`],
      releaseDate: date,
      artwork: artwork('albums', id),
      albumType,
      genres: genresOf[artistIndex]!,
      label: placement.pick(LABELS),
    };
    yield album;
  }

  const tracksOnAlbum = new Uint16Array(size.albums);
  const lyricsRandom = seededRandom((options.seed ?? 1) + 2);
  for (let i = 0; i < size.songs; i++) {
    const id = `song-${i + 1}`;
    const albumIndex = songAlbum[i]!;
    const artistIndex = albumArtist[albumIndex]!;
    const origin = origins[artistIndex]!;
    const artistIds = [`artist-${artistIndex + 1}`];
    if (random.chance(0.12)) {
      const featured = random.int(0, size.artists - 1);
      if (featured !== artistIndex) artistIds.push(`artist-${featured + 1}`);
    }
    const track = ++tracksOnAlbum[albumIndex]!;
    const regional = origin === 'ar' && random.chance(0.15);
    const clipMs = options.clips?.[id];
    const durationMs = random.int(120_000, 480_000);
    const song: SongRecord = {
      kind: 'song',
      id,
      title: titleFor(origin, random),
      originalLanguage: origin,
      artistIds,
      albumId: `album-${albumIndex + 1}`,
      durationMs: clipMs ?? durationMs,
      trackNumber: ((track - 1) % 14) + 1,
      discNumber: Math.floor((track - 1) / 14) + 1,
      releaseDate: albumDate[albumIndex]!,
      genres: genresOf[artistIndex]!,
      isExplicit: random.chance(0.05),
      isrc: regional ? '' : `${origin === 'ar' ? 'EG' : origin === 'en' ? 'GB' : 'FR'}MQM${albumDate[albumIndex]!.slice(2, 4)}${pad(i % 100000, 5)}`,
      popularity: Math.min(100, Math.floor(100 * random.next() ** 2.5)),
      artwork: artwork('albums', `album-${albumIndex + 1}`),
      previewUrl: random.chance(0.7) ? `https://previews.maqam.example/${id}.mp3` : '',
    };
    yield song;
    if (origin === 'ar' && soundtrackPool.length < 500) soundtrackPool.push(id);
    // Lyrics: synced to the clip for the songs that get one; otherwise 60% have some, a third of those synced.
    const language = origin === 'ar' ? 'ar' : 'en';
    if (clipMs !== undefined) {
      const lyrics: LyricsRecord = { kind: 'lyrics', songId: id, language, lrc: lrcOver(lyricLines(origin, lyricsRandom, 6), clipMs) };
      yield lyrics;
    } else if (lyricsRandom.chance(0.6)) {
      const lines = lyricLines(origin, lyricsRandom, lyricsRandom.int(6, 14));
      const lyrics: LyricsRecord = lyricsRandom.chance(0.33)
        ? { kind: 'lyrics', songId: id, language, lrc: lrcOver(lines, durationMs) }
        : { kind: 'lyrics', songId: id, language, lines };
      yield lyrics;
    }
  }

  if (options.knownArtists) yield* knownArtistRecords((songId) => options.clips?.[songId] ?? 180_000);

  // Related edges stay within the artist's musical world (same origin) most of the time.
  const byOrigin: Record<Origin, number[]> = { ar: [], en: [], fr: [] };
  origins.forEach((origin, index) => byOrigin[origin].push(index));
  for (let i = 0; i < size.artists; i++) {
    const pool = random.chance(0.85) ? byOrigin[origins[i]!] : byOrigin.ar;
    const wanted = Math.min(random.int(5, 40), size.artists - 1);
    const chosen = new Set<number>();
    for (let attempts = 0; chosen.size < wanted && attempts < wanted * 4; attempts++) {
      const other = random.pick(pool.length > 1 ? pool : byOrigin.ar);
      if (other !== i) chosen.add(other);
    }
    for (const other of chosen) {
      const sharesGenre = genresOf[other]!.some((g) => genresOf[i]!.includes(g));
      const edge: RelatedRecord = {
        kind: 'related',
        artistId: `artist-${i + 1}`,
        relatedId: `artist-${other + 1}`,
        score: Math.round((sharesGenre ? 0.5 + random.next() * 0.5 : random.next() * 0.6) * 1e4) / 1e4,
      };
      yield edge;
    }
  }

  if (options.video ?? true) {
    const random = seededRandom((options.seed ?? 1) + 3);
    yield* demoVideoRecords({ songs: size.songs, random, knownArtists: options.knownArtists ?? false, soundtrackPool });
  }
}

function titleFor(origin: Origin, random: ReturnType<typeof seededRandom>): Record<string, string> {
  if (origin === 'ar') {
    const words = Array.from({ length: random.int(1, 3) }, () => random.pick(TITLE_WORDS));
    return { ar: words.map((w) => w[0]).join(' '), en: words.map((w) => w[1]).join(' ') };
  }
  if (origin === 'en') return { en: Array.from({ length: random.int(1, 3) }, () => random.pick(ENGLISH_WORDS)).join(' ') };
  return { fr: Array.from({ length: random.int(1, 2) }, () => random.pick(FRENCH_WORDS)).join(' ') };
}

type SeedOptions = DemoCatalogOptions & { batchSize?: number; onProgress?: (written: number, total: number) => void };

/** Writes the demo catalog through the importer, in batched transactions. */
export async function seedDemoCatalog(storage: Storage, options: SeedOptions = {}): Promise<ImportSummary> {
  const size = demoCatalogSize(options.songs);
  // Progress counts the music's entities and the video's titles (a title's seasons and episodes come with it).
  const total = size.artists + size.albums + size.songs + (options.video ?? true ? size.shows + size.movies : 0);
  return seedRecords(storage, generateDemoCatalog(options), total, options);
}

const VIDEO_KINDS: ReadonlySet<ImportRecord['kind']> = new Set(['show', 'season', 'episode', 'movie']);

/**
 * Adds the video catalog to a demo catalog seeded before it had one: the
 * video records `generateDemoCatalog` gives for the same options (its
 * soundtracks list songs of that catalog, the known artists' when
 * `knownArtists`, so those must be in it: seedKnownArtists).
 */
export async function seedDemoVideo(storage: Storage, options: SeedOptions = {}): Promise<ImportSummary> {
  const size = demoCatalogSize(options.songs);
  const video = function* () {
    for (const record of generateDemoCatalog({ ...options, video: true })) if (VIDEO_KINDS.has(record.kind)) yield record;
  };
  return seedRecords(storage, video(), size.shows + size.movies, options);
}

async function seedRecords(storage: Storage, records: Iterable<ImportRecord>, total: number, options: SeedOptions): Promise<ImportSummary> {
  const batchSize = options.batchSize ?? DEFAULT_BATCH_SIZE;
  const summary = emptyImportSummary();
  return runImport(storage, async (writeBatch) => {
    let batch = new ImportBatch();
    let line = 0;
    const flush = async () => {
      addToSummary(summary, await writeBatch(batch));
      batch = new ImportBatch();
      options.onProgress?.(Math.min(total, summary.artists + summary.albums + summary.songs + summary.shows + summary.movies), total);
    };
    for (const record of records) {
      batch.add(++line, record);
      if (batch.size >= batchSize) await flush();
    }
    if (batch.size > 0) await flush();
    return summary;
  });
}

/**
 * Adds the known artists (known-artists.ts) to a catalog seeded before they
 * were part of the demo; `clips` gives their songs' lengths, as for
 * `generateDemoCatalog`.
 */
export async function seedKnownArtists(storage: Storage, clips: Readonly<Record<string, number>> = {}): Promise<ImportSummary> {
  const records = [...knownArtistRecords((songId) => clips[songId] ?? 180_000)];
  return runImport(storage, (writeBatch) => writeBatch(records.map((record, i) => ({ line: i + 1, record }))));
}
