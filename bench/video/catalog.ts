// bench/video's catalog, as NDJSON import records (packages/contract/src/import.ts), the same for the same
// sizes: music and video of one shape, so their imports compare record for record.
//
//   music:  artists (1 per 100 songs),  albums  (10 an artist, 10 songs each),     songs
//   video:  shows   (1 per 100 episodes), seasons (10 a show,  10 episodes each),  episodes
//   films:  movies (served beside them; not part of the import comparison)
//
// Both files hold as many records of each level (N / 100, N / 10, N), in the same order (a parent before what
// references it: an artist, its albums, each album's songs), and about as many bytes: a song carries the
// fields the demo catalog's do (ISRC, preview URL, popularity, a featured artist on 12%), an episode a
// one-sentence description in Arabic and English, as the demo's long tail does; the text sizes are printed by
// run.ts, which checks they are within 10% of each other. Titles and names are drawn from small pools of
// Arabic words with their transliterations, Arabic first, with seededRandom: the same N, the same bytes.
import { createWriteStream } from 'node:fs';
import { once } from 'node:events';
import type { ImportRecord } from '@maqam/contract';
import { seededRandom } from '@maqam/server';

type Pair = readonly [arabic: string, english: string];
type Random = ReturnType<typeof seededRandom>;

const WORDS: readonly Pair[] = [
  ['حبيبي', 'Habibi'], ['قلبي', 'Albi'], ['يا ليل', 'Ya Leil'], ['عيونك', 'Oyounak'], ['سهران', 'Sahran'], ['بحبك', 'Bahebak'],
  ['نور العين', 'Nour El Ein'], ['على بالي', 'Ala Bali'], ['وحشتني', 'Wahashtini'], ['الليلة', 'El Leila'], ['يا عمري', 'Ya Omri'],
  ['ليالي', 'Layali'], ['حكاية', 'Hekaya'], ['غرام', 'Gharam'], ['شوق', 'Shoq'], ['بعدك', 'Baadak'], ['سلام', 'Salam'],
  ['يا قمر', 'Ya Amar'], ['زمان', 'Zaman'], ['حلم', 'Helm'], ['بلادي', 'Biladi'], ['أمل', 'Amal'], ['دنيا', 'Donya'],
  ['روحي', 'Rohi'], ['شمس', 'Shams'], ['بحر', 'Bahr'], ['سما', 'Sama'], ['ورد', 'Ward'], ['مشتاق', 'Meshtaq'],
];
const FIRST: readonly Pair[] = [
  ['محمد', 'Mohamed'], ['عمرو', 'Amr'], ['تامر', 'Tamer'], ['وائل', 'Wael'], ['نانسي', 'Nancy'], ['شيرين', 'Sherine'],
  ['أنغام', 'Angham'], ['ماجد', 'Majid'], ['راشد', 'Rashed'], ['سميرة', 'Samira'], ['لطيفة', 'Latifa'], ['ديانا', 'Diana'],
  ['يارا', 'Yara'], ['نوال', 'Nawal'], ['وليد', 'Walid'], ['حمزة', 'Hamza'], ['ليلى', 'Layla'], ['سلمى', 'Salma'],
  ['رامي', 'Rami'], ['كريم', 'Karim'], ['نور', 'Nour'], ['مروان', 'Marwan'], ['ريم', 'Reem'], ['دينا', 'Dina'],
];
const FAMILY: readonly Pair[] = [
  ['دياب', 'Diab'], ['حسني', 'Hosny'], ['المهندس', 'Al Mohandes'], ['كفوري', 'Kfoury'], ['منصور', 'Mansour'], ['الشامي', 'Al Shami'],
  ['حداد', 'Haddad'], ['خوري', 'Khoury'], ['سعد', 'Saad'], ['فؤاد', 'Fouad'], ['نجم', 'Najm'], ['قاسم', 'Qasem'], ['يوسف', 'Youssef'],
  ['جابر', 'Jaber'], ['صالح', 'Saleh'], ['ناصر', 'Nasser'], ['بدر', 'Badr'], ['الموجي', 'El Mougy'],
];
const PLACES: readonly Pair[] = [
  ['القاهرة', 'Cairo'], ['بيروت', 'Beirut'], ['دمشق', 'Damascus'], ['عمّان', 'Amman'], ['الكويت', 'Kuwait'], ['تونس', 'Tunis'],
  ['الإسكندرية', 'Alexandria'], ['مراكش', 'Marrakesh'], ['بغداد', 'Baghdad'], ['جدة', 'Jeddah'], ['مسقط', 'Muscat'], ['حلب', 'Aleppo'],
];
const MUSIC_GENRES = ['arabic-pop', 'tarab', 'khaleeji', 'mahraganat', 'rai', 'shaabi', 'dabke', 'arabic-indie'];
const VIDEO_GENRES = ['drama', 'comedy', 'family', 'thriller', 'documentary', 'romance', 'history', 'crime'];
const RATINGS = ['AGE_RATING_ALL', 'AGE_RATING_7', 'AGE_RATING_13', 'AGE_RATING_16', 'AGE_RATING_18'] as const;
const NATIONALITIES = ['EG', 'LB', 'SA', 'AE', 'IQ', 'SY', 'MA', 'TN', 'JO', 'KW'];
const LABELS = ['Rotana', 'Mazzika', 'Platinum Records', 'Voice of Beirut', 'Relax-In', 'Sawt El Fan'];
const ARABIC_DIGITS = '٠١٢٣٤٥٦٧٨٩';

const arabicNumber = (n: number) => String(n).replace(/\d/g, (d) => ARABIC_DIGITS[Number(d)]!);
const pad = (n: number, width = 2) => String(n).padStart(width, '0');
const texts = (pair: Pair) => ({ ar: pair[0], en: pair[1] });
const image = (kind: string, id: string, width: number, height: number) => ({ url: `/artwork/${kind}/${id}.svg`, width, height });
const dateIn = (random: Random, from: number, to: number) => `${random.int(from, to)}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);

function title(random: Random, words: number): Pair {
  const picked = Array.from({ length: words }, () => random.pick(WORDS));
  return [picked.map((w) => w[0]).join(' '), picked.map((w) => w[1]).join(' ')];
}

function personName(random: Random): Pair {
  const first = random.pick(FIRST);
  const family = random.pick(FAMILY);
  return [`${first[0]} ${family[0]}`, `${first[1]} ${family[1]}`];
}

/** A title's cast: people drawn from a pool of 5,000, the first two leads, each playing a named character. */
function cast(random: Random, size: number) {
  return Array.from({ length: size }, (_, i) => {
    const person = random.int(1, 5000);
    const character = random.pick(FIRST);
    return {
      id: `person-${person}`, name: texts(personName(seededRandom(person))), originalLanguage: 'ar', role: character[0],
      profileImageUrl: `/artwork/people/person-${person}.svg`, isLead: i < 2,
    };
  });
}

/** 1 artist per 100 songs, 10 albums an artist, 10 songs an album: artist, its albums, each album's songs. */
export function* musicRecords(songs: number): Generator<ImportRecord> {
  const random = seededRandom(53);
  for (let a = 1; a <= songs / 100; a++) {
    const artistId = `artist-${a}`;
    const name = personName(random);
    const genres = [...new Set([random.pick(MUSIC_GENRES), ...(random.chance(0.4) ? [random.pick(MUSIC_GENRES)] : [])])];
    const followers = Math.floor(10 ** (2 + random.next() * 5.5));
    yield {
      kind: 'artist', id: artistId, name: texts(name), originalLanguage: 'ar',
      bio: { ar: `${name[0]} فنان عربي من ${random.pick(PLACES)[0]}.`, en: `${name[1]} is an Arab artist.` },
      genres, followerCount: String(followers), monthlyListeners: String(Math.floor(followers * (0.2 + random.next()))),
      isVerified: followers > 100_000, socialLinks: [{ platform: 'instagram', url: `https://instagram.com/${artistId}` }],
      artwork: [image('artists', artistId, 300, 300)], nationality: random.pick(NATIONALITIES),
    };
    for (let b = 1; b <= 10; b++) {
      const n = (a - 1) * 10 + b;
      const albumId = `album-${n}`;
      const releaseDate = dateIn(random, 1970, 2026);
      yield {
        kind: 'album', id: albumId, title: texts(title(random, random.int(1, 3))), originalLanguage: 'ar', artistIds: [artistId],
        releaseDate, artwork: [image('albums', albumId, 300, 300)], albumType: 'ALBUM_TYPE_ALBUM', genres, label: random.pick(LABELS),
      };
      for (let t = 1; t <= 10; t++) {
        const s = (n - 1) * 10 + t;
        // A featured artist is one listed before (a file lists what it references first).
        const featured = random.chance(0.12) ? [`artist-${random.int(1, a)}`].filter((id) => id !== artistId) : [];
        yield {
          kind: 'song', id: `song-${s}`, title: texts(title(random, random.int(1, 3))), originalLanguage: 'ar', artistIds: [artistId, ...featured],
          albumId, durationMs: random.int(120_000, 480_000), trackNumber: t, discNumber: 1, releaseDate, genres,
          isExplicit: random.chance(0.05), isrc: `EGMQM${releaseDate.slice(2, 4)}${pad(s % 100_000, 5)}`,
          popularity: Math.min(100, Math.floor(100 * random.next() ** 2.5)), artwork: [image('albums', albumId, 300, 300)],
          previewUrl: `https://previews.maqam.example/song-${s}.mp3`,
        };
      }
    }
  }
}

/** 1 show per 100 episodes, 10 seasons a show, 10 episodes a season: show, its seasons, each season's episodes. */
export function* videoRecords(episodes: number): Generator<ImportRecord> {
  const random = seededRandom(54);
  for (let sh = 1; sh <= episodes / 100; sh++) {
    const showId = `show-${sh}`;
    const name = title(random, random.int(1, 2));
    const place = random.pick(PLACES);
    const rating = random.pick(RATINGS);
    const firstYear = random.int(1990, 2016);
    yield {
      kind: 'show', id: showId, title: texts(name), originalLanguage: 'ar',
      description: { ar: `دراما عائلية تدور أحداثها في ${place[0]}.`, en: `A family drama set in ${place[1]}.` },
      genres: [random.pick(VIDEO_GENRES)], ageRating: rating, releaseYear: firstYear, cast: cast(random, random.int(3, 5)),
      artwork: [image('shows', showId, 400, 600), image('show-backdrops', showId, 1280, 720)],
    };
    for (let se = 1; se <= 10; se++) {
      const seasonId = `season-${sh}-${se}`;
      const airDate = `${firstYear + se - 1}-${pad(random.int(1, 12))}-${pad(random.int(1, 28))}`;
      yield {
        kind: 'season', id: seasonId, showId, seasonNumber: se, title: { ar: `الموسم ${arabicNumber(se)}`, en: `Season ${se}` }, originalLanguage: 'ar',
        description: { ar: `تستمر الحكاية في الموسم ${arabicNumber(se)}.`, en: `The story goes on in season ${se}.` },
        airDate, artwork: [image('seasons', seasonId, 400, 600)],
      };
      for (let e = 1; e <= 10; e++) {
        const episodeId = `episode-${sh}-${se}-${e}`;
        const durationMs = random.int(25, 50) * 60_000 + random.int(0, 59) * 1000;
        const a = random.pick(FIRST);
        const b = random.pick(FIRST);
        const where = random.pick(PLACES);
        yield {
          kind: 'episode', id: episodeId, seasonId, showId, episodeNumber: e, title: { ar: `الحلقة ${arabicNumber(e)}`, en: `Episode ${e}` }, originalLanguage: 'ar',
          description: { ar: `${a[0]} يلتقي ${b[0]} في ${where[0]}.`, en: `${a[1]} meets ${b[1]} in ${where[1]}.` },
          durationMs, airDate: addDays(airDate, (e - 1) * 7), artwork: [image('episodes', episodeId, 640, 360)],
          subtitleLanguages: ['ar', 'en'], creditsStartMs: durationMs - random.int(45, 90) * 1000,
        };
      }
    }
  }
}

/** Films: cast of 3 to 5, poster and backdrop, as the demo's long tail. */
export function* movieRecords(movies: number): Generator<ImportRecord> {
  const random = seededRandom(55);
  for (let m = 1; m <= movies; m++) {
    const movieId = `movie-${m}`;
    const place = random.pick(PLACES);
    const durationMs = random.int(85, 150) * 60_000 + random.int(0, 59) * 1000;
    yield {
      kind: 'movie', id: movieId, title: texts(title(random, random.int(1, 3))), originalLanguage: 'ar',
      description: { ar: `قصة حب في ${place[0]}.`, en: `A love story in ${place[1]}.` }, genres: [random.pick(VIDEO_GENRES)],
      ageRating: random.pick(RATINGS), releaseDate: dateIn(random, 1965, 2025), durationMs, cast: cast(random, random.int(3, 5)),
      artwork: [image('movies', movieId, 400, 600), image('movie-backdrops', movieId, 1280, 720)],
      audioLanguages: ['ar'], subtitleLanguages: ['ar', 'en'], creditsStartMs: durationMs - random.int(240, 540) * 1000,
    };
  }
}

/** Writes records as NDJSON; answers the records and bytes written. */
export async function writeNdjson(file: string, records: Iterable<ImportRecord>): Promise<{ records: number; bytes: number }> {
  const out = createWriteStream(file);
  let count = 0;
  let bytes = 0;
  for (const record of records) {
    const line = `${JSON.stringify(record)}\n`;
    count++;
    bytes += Buffer.byteLength(line);
    if (!out.write(line)) await once(out, 'drain');
  }
  out.end();
  await once(out, 'finish');
  return { records: count, bytes };
}
