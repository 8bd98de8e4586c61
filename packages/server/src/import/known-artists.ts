import type { AlbumRecord, AlbumType, ArtistRecord, ImportRecord, RelatedRecord, SongRecord } from '@maqam/contract';

/**
 * The artists a person tries first in an Arabic music app, for the demo
 * catalog: each with a few of their real album and song titles, in Arabic
 * and in a Latin spelling. Titles and names are facts; the demo has no real
 * lyrics or recordings of them (its audio is generated: demo-music.ts).
 * Release years are those of the works; the day of the year is not known
 * here, so each is dated the first of January.
 */

type Pair = readonly [arabic: string, latin: string];

interface KnownAlbum {
  readonly title: Pair;
  readonly year: number;
  readonly type: AlbumType;
  readonly songs: readonly Pair[];
}

interface KnownArtist {
  readonly slug: string;
  readonly name: Pair;
  readonly nationality: string;
  readonly genres: readonly string[];
  readonly bio: Pair;
  readonly albums: readonly KnownAlbum[];
}

const single = (title: Pair, year: number): KnownAlbum => ({ title, year, type: 'ALBUM_TYPE_SINGLE', songs: [title] });

export const KNOWN_ARTISTS: readonly KnownArtist[] = [
  {
    slug: 'umm-kulthum', name: ['أم كلثوم', 'Umm Kulthum'], nationality: 'EG', genres: ['tarab'],
    bio: ['مطربة مصرية لُقّبت بكوكب الشرق، أشهر أصوات الطرب العربي في القرن العشرين.', 'Egyptian singer known as the Star of the East, the best-known voice of twentieth-century Arabic tarab.'],
    albums: [
      single(['إنت عمري', 'Enta Omri'], 1964),
      single(['أمل حياتي', 'Amal Hayati'], 1965),
      single(['الأطلال', 'Al Atlal'], 1966),
      single(['ألف ليلة وليلة', 'Alf Leila wa Leila'], 1969),
    ],
  },
  {
    slug: 'fairuz', name: ['فيروز', 'Fairuz'], nationality: 'LB', genres: ['tarab', 'arabic-pop'],
    bio: ['مطربة لبنانية، صوت الصباح في بيوت العرب، غنّت من ألحان الأخوين رحباني وزياد الرحباني.', 'Lebanese singer, the morning voice of Arab homes, who sang the songs of the Rahbani brothers and of Ziad Rahbani.'],
    albums: [
      single(['زهرة المدائن', 'Zahrat al Madaen'], 1967),
      single(['لبيروت', 'Li Beirut'], 1984),
      { title: ['كيفك إنت', 'Kifak Inta'], year: 1991, type: 'ALBUM_TYPE_ALBUM', songs: [['كيفك إنت', 'Kifak Inta']] },
    ],
  },
  {
    slug: 'abdel-halim-hafez', name: ['عبد الحليم حافظ', 'Abdel Halim Hafez'], nationality: 'EG', genres: ['tarab'],
    bio: ['مطرب مصري لُقّب بالعندليب الأسمر.', 'Egyptian singer known as the Dark-Skinned Nightingale.'],
    albums: [
      single(['أهواك', 'Ahwak'], 1957),
      single(['سواح', 'Sawah'], 1966),
      single(['زي الهوا', 'Zay El Hawa'], 1970),
      single(['قارئة الفنجان', 'Qariat al Fingan'], 1976),
    ],
  },
  {
    slug: 'mohammed-abdu', name: ['محمد عبده', 'Mohammed Abdu'], nationality: 'SA', genres: ['khaleeji', 'tarab'],
    bio: ['مطرب سعودي لُقّب بفنان العرب.', 'Saudi singer known as the Artist of the Arabs.'],
    albums: [
      single(['أبعاد', 'Abaad'], 1984),
      single(['مجموعة إنسان', 'Majmouat Insan'], 1993),
      single(['الأماكن', 'Al Amaken'], 2001),
    ],
  },
  {
    slug: 'warda', name: ['وردة', 'Warda'], nationality: 'DZ', genres: ['tarab', 'arabic-pop'],
    bio: ['مطربة جزائرية عاشت في القاهرة ولُقّبت بوردة الجزائرية.', 'Algerian singer who made her career in Cairo, known as Warda Al Jazairia.'],
    albums: [
      single(['اسمعوني', 'Esmaouni'], 1973),
      single(['حرمت أحبك', 'Harramt Ahebak'], 1991),
      { title: ['بتونس بيك', 'Batwanes Beek'], year: 1992, type: 'ALBUM_TYPE_ALBUM', songs: [['بتونس بيك', 'Batwanes Beek']] },
    ],
  },
  {
    slug: 'kadim-al-sahir', name: ['كاظم الساهر', 'Kadim Al Sahir'], nationality: 'IQ', genres: ['arabic-pop', 'tarab'],
    bio: ['مطرب وملحن عراقي لُقّب بالقيصر، لحّن كثيرًا من قصائد نزار قباني.', 'Iraqi singer and composer known as the Caesar, who set many poems of Nizar Qabbani to music.'],
    albums: [
      single(['مدرسة الحب', 'Madrasat Al Hob'], 1996),
      { title: ['أنا وليلى', 'Ana Wa Laila'], year: 1998, type: 'ALBUM_TYPE_ALBUM', songs: [['أنا وليلى', 'Ana Wa Laila']] },
      single(['زيديني عشقًا', 'Zidini Ishqan'], 1999),
    ],
  },
  {
    slug: 'amr-diab', name: ['عمرو دياب', 'Amr Diab'], nationality: 'EG', genres: ['arabic-pop'],
    bio: ['مطرب وملحن مصري لُقّب بالهضبة.', 'Egyptian singer and composer known as El Hadaba.'],
    albums: [
      { title: ['نور العين', 'Nour El Ein'], year: 1996, type: 'ALBUM_TYPE_ALBUM', songs: [['نور العين', 'Nour El Ein']] },
      { title: ['تملي معاك', 'Tamally Maak'], year: 2000, type: 'ALBUM_TYPE_ALBUM', songs: [['تملي معاك', 'Tamally Maak']] },
      { title: ['أكتر واحد', 'Aktar Wahed'], year: 2001, type: 'ALBUM_TYPE_ALBUM', songs: [['أكتر واحد', 'Aktar Wahed'], ['ولا على باله', 'Wala Ala Balo']] },
      { title: ['ويّاه', 'Wayah'], year: 2009, type: 'ALBUM_TYPE_ALBUM', songs: [['ويّاه', 'Wayah']] },
    ],
  },
  {
    slug: 'nancy-ajram', name: ['نانسي عجرم', 'Nancy Ajram'], nationality: 'LB', genres: ['arabic-pop'],
    bio: ['مطربة لبنانية من أشهر نجوم البوب العربي.', 'Lebanese singer, one of the best-known stars of Arabic pop.'],
    albums: [
      { title: ['يا سلام', 'Ya Salam'], year: 2003, type: 'ALBUM_TYPE_ALBUM', songs: [['أخاصمك آه', 'Akhasmak Ah'], ['يا سلام', 'Ya Salam']] },
      { title: ['آه ونص', 'Ah W Noss'], year: 2004, type: 'ALBUM_TYPE_ALBUM', songs: [['آه ونص', 'Ah W Noss']] },
      { title: ['يا طبطب ودلع', 'Ya Tabtab Wa Dallaa'], year: 2006, type: 'ALBUM_TYPE_ALBUM', songs: [['يا طبطب', 'Ya Tabtab']] },
    ],
  },
  {
    slug: 'elissa', name: ['إليسا', 'Elissa'], nationality: 'LB', genres: ['arabic-pop'],
    bio: ['مطربة لبنانية من أكثر الأصوات مبيعًا في البوب العربي.', 'Lebanese singer, one of the best-selling voices of Arabic pop.'],
    albums: [
      { title: ['أيامي بيك', 'Ayami Bik'], year: 2004, type: 'ALBUM_TYPE_ALBUM', songs: [['أيامي بيك', 'Ayami Bik']] },
      { title: ['بستناك', 'Bastanak'], year: 2006, type: 'ALBUM_TYPE_ALBUM', songs: [['بستناك', 'Bastanak']] },
      { title: ['أسعد واحدة', 'Asaad Wahda'], year: 2012, type: 'ALBUM_TYPE_ALBUM', songs: [['أسعد واحدة', 'Asaad Wahda']] },
    ],
  },
  {
    slug: 'mohamed-mounir', name: ['محمد منير', 'Mohamed Mounir'], nationality: 'EG', genres: ['arabic-pop', 'shaabi'],
    bio: ['مطرب مصري من النوبة لُقّب بالملك.', 'Egyptian singer from Nubia known as El King.'],
    albums: [
      { title: ['شبابيك', 'Shababeek'], year: 1981, type: 'ALBUM_TYPE_ALBUM', songs: [['شبابيك', 'Shababeek']] },
      single(['علّي صوتك', 'Ali Soutak'], 1997),
    ],
  },
  {
    slug: 'marcel-khalife', name: ['مارسيل خليفة', 'Marcel Khalife'], nationality: 'LB', genres: ['arabic-indie'],
    bio: ['موسيقي وعازف عود لبناني، غنّى قصائد محمود درويش.', 'Lebanese composer and oud player who sang the poems of Mahmoud Darwish.'],
    albums: [
      { title: ['وعود من العاصفة', 'Promises of the Storm'], year: 1976, type: 'ALBUM_TYPE_ALBUM', songs: [['أمي', 'Ummi'], ['جواز السفر', 'Jawaz al Safar']] },
      single(['ريتا والبندقية', 'Rita wal Bunduqiya'], 1976),
    ],
  },
  {
    slug: 'cairokee', name: ['كايروكي', 'Cairokee'], nationality: 'EG', genres: ['arabic-indie'],
    bio: ['فرقة روك مصرية من القاهرة.', 'Egyptian rock band from Cairo.'],
    albums: [
      single(['يا الميدان', 'Ya El Midan'], 2012),
      { title: ['ناس وناس', 'Nas We Nas'], year: 2016, type: 'ALBUM_TYPE_ALBUM', songs: [['ناس وناس', 'Nas We Nas']] },
      { title: ['السكة شمال', 'El Sekka Shemal'], year: 2017, type: 'ALBUM_TYPE_ALBUM', songs: [['السكة شمال', 'El Sekka Shemal']] },
    ],
  },
  {
    slug: 'sabah-fakhri', name: ['صباح فخري', 'Sabah Fakhri'], nationality: 'SY', genres: ['tarab'],
    bio: ['مطرب سوري من حلب، من أعلام القدود الحلبية والموشحات.', 'Syrian singer from Aleppo, a master of the qudud and the muwashshah.'],
    albums: [single(['قدك المياس', 'Qadduka al Mayyas'], 1970), single(['يا مال الشام', 'Ya Mal al Sham'], 1970)],
  },
  {
    slug: 'majida-el-roumi', name: ['ماجدة الرومي', 'Majida El Roumi'], nationality: 'LB', genres: ['tarab', 'arabic-pop'],
    bio: ['مطربة لبنانية غنّت قصائد نزار قباني.', 'Lebanese soprano who sang the poems of Nizar Qabbani.'],
    albums: [single(['يا بيروت', 'Ya Beirut'], 1985), { title: ['كلمات', 'Kalimat'], year: 1991, type: 'ALBUM_TYPE_ALBUM', songs: [['كلمات', 'Kalimat']] }],
  },
  {
    slug: 'mashrou-leila', name: ['مشروع ليلى', "Mashrou' Leila"], nationality: 'LB', genres: ['arabic-indie'],
    bio: ['فرقة روك مستقلة من بيروت.', 'Indie rock band from Beirut.'],
    albums: [
      { title: ['رقصوك', 'Raasük'], year: 2013, type: 'ALBUM_TYPE_ALBUM', songs: [['للوطن', 'Lil Watan']] },
      { title: ['ابن الليل', 'Ibn El Leil'], year: 2015, type: 'ALBUM_TYPE_ALBUM', songs: [['رومان', 'Roman']] },
    ],
  },
];

/** The known artists' Latin names: the generated catalog gives them to nobody else. */
export const KNOWN_ARTIST_NAMES: ReadonlySet<string> = new Set(KNOWN_ARTISTS.map((artist) => artist.name[1]));

/** A known artist's ids: stable, readable, and apart from the generated catalog's numbered ones. */
export const knownArtistId = (slug: string) => `artist-${slug}`;

/** Latin titles as ids: "Alf Leila wa Leila" -> "alf-leila-wa-leila". */
const slugOf = (latin: string) => latin.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');

/** A known song as the demo's music generator sees it: its id, and what to generate it from. */
export interface KnownSong {
  readonly id: string;
  /** The album's place among all known albums: the generator gives each album its own maqam and tempo. */
  readonly albumIndex: number;
  readonly trackNumber: number;
  /** On one of its artist's two newest albums: the ones the demo's home shows, so made playable first. */
  readonly newest: boolean;
}

/** The known artists' songs, in catalog order. */
export function knownSongs(): KnownSong[] {
  const songs: KnownSong[] = [];
  let albumIndex = 0;
  for (const artist of KNOWN_ARTISTS) {
    const newest = [...artist.albums].sort((a, b) => b.year - a.year).slice(0, 2);
    for (const album of artist.albums) {
      album.songs.forEach((title, i) => songs.push({ id: `song-${artist.slug}-${slugOf(title[1])}`, albumIndex, trackNumber: i + 1, newest: newest.includes(album) }));
      albumIndex++;
    }
  }
  return songs;
}

/**
 * The known artists as import records: artists, albums, songs, and related
 * edges between artists of a shared genre. Most listened to of the catalog,
 * so the demo's home features them. `durationMs` gives each song's length
 * (the generated audio's), by song id.
 */
export function* knownArtistRecords(durationMs: (songId: string) => number): Generator<ImportRecord> {
  const artwork = (kind: 'artists' | 'albums', id: string) => [{ url: `/artwork/${kind}/${encodeURIComponent(id)}.svg`, width: 300, height: 300 }];
  const songs = knownSongs();
  let next = 0;
  for (const [rank, artist] of KNOWN_ARTISTS.entries()) {
    const listeners = 90_000_000 - rank * 3_000_000;
    yield {
      kind: 'artist', id: knownArtistId(artist.slug), name: { ar: artist.name[0], en: artist.name[1] }, originalLanguage: 'ar',
      bio: { ar: artist.bio[0], en: artist.bio[1] }, genres: [...artist.genres], followerCount: String(Math.round(listeners * 0.6)),
      monthlyListeners: String(listeners), isVerified: true, socialLinks: [], artwork: artwork('artists', knownArtistId(artist.slug)),
      nationality: artist.nationality,
    } satisfies ArtistRecord;
  }
  for (const artist of KNOWN_ARTISTS) {
    for (const album of artist.albums) {
      const albumId = `album-${artist.slug}-${slugOf(album.title[1])}`;
      const releaseDate = `${album.year}-01-01`;
      yield {
        kind: 'album', id: albumId, title: { ar: album.title[0], en: album.title[1] }, originalLanguage: 'ar', artistIds: [knownArtistId(artist.slug)],
        releaseDate, artwork: artwork('albums', albumId), albumType: album.type, genres: [...artist.genres], label: '',
      } satisfies AlbumRecord;
      for (const title of album.songs) {
        const song = songs[next++]!;
        yield {
          kind: 'song', id: song.id, title: { ar: title[0], en: title[1] }, originalLanguage: 'ar', artistIds: [knownArtistId(artist.slug)], albumId,
          durationMs: durationMs(song.id), trackNumber: song.trackNumber, discNumber: 1, releaseDate, genres: [...artist.genres], isExplicit: false,
          isrc: '', popularity: 100 - (next % 10), artwork: artwork('albums', albumId), previewUrl: '',
        } satisfies SongRecord;
      }
    }
  }
  for (const artist of KNOWN_ARTISTS) {
    for (const other of KNOWN_ARTISTS) {
      if (other === artist) continue;
      const shared = other.genres.filter((genre) => artist.genres.includes(genre)).length;
      if (shared === 0) continue;
      yield { kind: 'related', artistId: knownArtistId(artist.slug), relatedId: knownArtistId(other.slug), score: shared / Math.max(artist.genres.length, other.genres.length) } satisfies RelatedRecord;
    }
  }
}
