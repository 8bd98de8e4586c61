import type { AgeRating, CastMemberRecord, EpisodeRecord, ImportRecord, MovieRecord, SeasonRecord, ShowRecord } from '@maqam/contract';
import { knownSongs } from './known-artists.ts';

/**
 * The demo's video catalog (contract section 15), as import records: first
 * the titles an Arabic-speaking viewer recognises by kind (a Ramadan drama of
 * three seasons, a Kuwaiti comedy, documentary series, a cartoon, a Beirut
 * thriller and nine films, each with cast, ratings from AGE_RATING_ALL to
 * AGE_RATING_18, air dates and soundtracks of the known artists' songs),
 * then a long tail of shows and films in proportion to the songs. Every
 * title, person and character is invented; the places, and the artists a
 * documentary is about, are real. The same seed gives the same records.
 */

/** The random stream the demo catalog gives (demo-catalog.ts seededRandom), as much of it as this file uses. */
export interface Random {
  next(): number;
  int(min: number, max: number): number;
  pick<T>(list: readonly T[]): T;
  chance(p: number): boolean;
}
type Pair = readonly [arabic: string, english: string];
type Gender = 'm' | 'f';

interface Person {
  readonly id: string;
  readonly name: Pair;
  readonly gender: Gender;
  /** The language the name is written in first (default Arabic). */
  readonly language?: 'en';
}

/** Someone a story is about: a part's character, or a beat's subject. */
interface Character {
  readonly name: Pair;
  readonly gender: Gender;
}

/** A part in a title: a character played, or (without one) the direction. */
interface Part {
  readonly person: Person;
  readonly character?: Character;
  readonly lead?: boolean;
}

/** One line of an episode's story about its characters: Arabic and English. */
type Beat = (a: Character, b: Character) => Pair;

/** An episode with a name of its own: title and description, in Arabic then English. */
type NamedEpisode = readonly [titleAr: string, titleEn: string, descriptionAr: string, descriptionEn: string];

interface SeasonPlan {
  readonly subtitle?: Pair;
  readonly description: Pair;
  readonly firstAirDate: string;
  /** Days between episodes: 1 for a Ramadan series (one an evening), 7 for a weekly one. */
  readonly everyDays: number;
  /** Named episodes, or how many numbered ones (described by the show's beats). */
  readonly episodes: readonly NamedEpisode[] | number;
}

interface ShowPlan {
  readonly slug: string;
  readonly title: Pair;
  readonly description: Pair;
  readonly genres: readonly string[];
  readonly ageRating?: AgeRating;
  readonly releaseYear: number;
  readonly parts: readonly Part[];
  readonly soundtrack: readonly string[];
  readonly seasons: readonly SeasonPlan[];
  readonly minutes: readonly [min: number, max: number];
  readonly audio: readonly string[];
  readonly subtitles: readonly string[];
  readonly beats?: readonly Beat[];
  /** Episodes rated above their show, by `season-episode`. */
  readonly episodeRatings?: Readonly<Record<string, AgeRating>>;
  /** Guest parts, by `season-episode`. */
  readonly guests?: Readonly<Record<string, readonly Part[]>>;
}

interface MoviePlan {
  readonly slug: string;
  readonly title: Pair;
  readonly description: Pair;
  readonly originalLanguage?: 'en';
  readonly genres: readonly string[];
  readonly ageRating?: AgeRating;
  readonly releaseDate: string;
  readonly minutes: number;
  readonly parts: readonly Part[];
  readonly soundtrack: readonly string[];
  readonly audio: readonly string[];
  readonly subtitles: readonly string[];
}

// ---- Words and helpers ----

/** The Arabic word of a character's gender: verbs and pronouns agree with who does the thing. */
const g = (c: Character, masculine: string, feminine: string) => (c.gender === 'm' ? masculine : feminine);
const ARABIC_DIGITS = '٠١٢٣٤٥٦٧٨٩';
const arabicNumber = (n: number) => String(n).replace(/\d/g, (d) => ARABIC_DIGITS[Number(d)]!);
const ORDINALS: readonly Pair[] = [
  ['الأول', 'One'], ['الثاني', 'Two'], ['الثالث', 'Three'], ['الرابع', 'Four'], ['الخامس', 'Five'],
  ['السادس', 'Six'], ['السابع', 'Seven'], ['الثامن', 'Eight'], ['التاسع', 'Nine'], ['العاشر', 'Ten'],
];
const seasonWord = (n: number): Pair => (n <= ORDINALS.length ? [`الموسم ${ORDINALS[n - 1]![0]}`, `Season ${n}`] : [`الموسم ${arabicNumber(n)}`, `Season ${n}`]);
const texts = (pair: Pair, language: 'ar' | 'en' = 'ar') => (language === 'ar' ? { ar: pair[0], en: pair[1] } : { en: pair[1], ar: pair[0] });
const addDays = (date: string, days: number) => new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10);
const pad2 = (n: number) => String(n).padStart(2, '0');
const minutes = (m: number) => m * 60_000;

/** The first day of Ramadan, 2000 to 2026 (to a day: the sighting of the moon decides): Ramadan series air one episode an evening from it. */
const RAMADAN_STARTS: Readonly<Record<number, string>> = {
  2000: '2000-11-27', 2001: '2001-11-16', 2002: '2002-11-06', 2003: '2003-10-27', 2004: '2004-10-15', 2005: '2005-10-04',
  2006: '2006-09-24', 2007: '2007-09-13', 2008: '2008-09-01', 2009: '2009-08-22', 2010: '2010-08-11', 2011: '2011-08-01',
  2012: '2012-07-20', 2013: '2013-07-09', 2014: '2014-06-28', 2015: '2015-06-18', 2016: '2016-06-06', 2017: '2017-05-27',
  2018: '2018-05-16', 2019: '2019-05-06', 2020: '2020-04-24', 2021: '2021-04-13', 2022: '2022-04-02', 2023: '2023-03-23',
  2024: '2024-03-11', 2025: '2025-03-01', 2026: '2026-02-18',
};
const LAST_YEAR = 2026;

/** Server-drawn artwork (catalog/artwork.ts), server-relative as the music's: posters 2:3, backdrops and stills 16:9, portraits square. */
const drawn = (kind: string, id: string, width: number, height: number) => ({ url: `/artwork/${kind}/${encodeURIComponent(id)}.svg`, width, height });
const titleArtwork = (kind: 'shows' | 'movies', id: string) => [drawn(kind, id, 400, 600), drawn(kind === 'shows' ? 'show-backdrops' : 'movie-backdrops', id, 1280, 720)];
const seasonArtwork = (id: string) => [drawn('seasons', id, 400, 600)];
const episodeArtwork = (id: string) => [drawn('episodes', id, 640, 360)];
const portraitUrl = (id: string) => drawn('people', id, 300, 300).url;

/** The director's part, in the title's language. */
const DIRECTION: Pair = ['إخراج', 'Director'];

function castOf(parts: readonly Part[], language: 'ar' | 'en'): CastMemberRecord[] {
  return parts.map(({ person, character, lead }) => ({
    id: person.id,
    name: texts(person.name, person.language ?? 'ar'),
    originalLanguage: person.language ?? 'ar',
    role: (character?.name ?? DIRECTION)[language === 'ar' ? 0 : 1],
    profileImageUrl: portraitUrl(person.id),
    isLead: lead ?? false,
  }));
}

const person = (slug: string, arabic: string, english: string, gender: Gender, language?: 'en'): Person =>
  ({ id: `person-${slug}`, name: [arabic, english], gender, ...(language ? { language } : {}) });
const plays = (who: Person, arabic: string, english: string, gender: Gender, lead = false): Part => ({ person: who, character: { name: [arabic, english], gender }, lead });
const directs = (who: Person): Part => ({ person: who });

// ---- The people of the curated titles (invented) ----

const P = {
  faroukAdawy: person('farouk-el-adawy', 'فاروق العدوي', 'Farouk El Adawy', 'm'),
  soheirBadry: person('soheir-el-badry', 'سهير البدري', 'Soheir El Badry', 'f'),
  mouradSeyoufy: person('mourad-el-seyoufy', 'مراد السيوفي', 'Mourad El Seyoufy', 'm'),
  yasminaFawzy: person('yasmina-fawzy', 'ياسمينة فوزي', 'Yasmina Fawzy', 'f'),
  hossamBanna: person('hossam-el-banna', 'حسام البنّا', 'Hossam El Banna', 'm'),
  nermineGammal: person('nermine-el-gammal', 'نرمين الجمّال', 'Nermine El Gammal', 'f'),
  adelKorashy: person('adel-el-korashy', 'عادل القرشي', 'Adel El Korashy', 'm'),
  halaZeiny: person('hala-el-zeiny', 'هالة الزيني', 'Hala El Zeiny', 'f'),
  abdulazizHajri: person('abdulaziz-al-hajri', 'عبدالعزيز الهاجري', 'Abdulaziz Al Hajri', 'm'),
  muniraSalem: person('munira-al-salem', 'منيرة السالم', 'Munira Al Salem', 'f'),
  fahadRashidan: person('fahad-al-rashidan', 'فهد الرشيدان', 'Fahad Al Rashidan', 'm'),
  shahadBalushi: person('shahad-al-balushi', 'شهد البلوشي', 'Shahad Al Balushi', 'f'),
  mishalDosari: person('mishal-al-dosari', 'مشعل الدوسري', 'Mishal Al Dosari', 'm'),
  hessaAbdullah: person('hessa-al-abdullah', 'حصة العبدالله', 'Hessa Al Abdullah', 'f'),
  talalMutairi: person('talal-al-mutairi', 'طلال المطيري', 'Talal Al Mutairi', 'm'),
  nabilKhatib: person('nabil-al-khatib', 'نبيل الخطيب', 'Nabil Al Khatib', 'm'),
  ranaHaddadin: person('rana-haddadin', 'رنا الحدادين', 'Rana Haddadin', 'f'),
  layalSaab: person('layal-saab', 'ليال صعب', 'Layal Saab', 'f'),
  omarJundi: person('omar-al-jundi', 'عمر الجندي', 'Omar Al Jundi', 'm'),
  rimKanaan: person('rim-kanaan', 'ريم كنعان', 'Rim Kanaan', 'f'),
  ziadToukan: person('ziad-toukan', 'زياد طوقان', 'Ziad Toukan', 'm'),
  mayaNasr: person('maya-nasr', 'مايا نصر', 'Maya Nasr', 'f'),
  anisBarakat: person('anis-barakat', 'أنيس بركات', 'Anis Barakat', 'm'),
  hindBelkadi: person('hind-belkadi', 'هند بلقاضي', 'Hind Belkadi', 'f'),
  wissamAbiNader: person('wissam-abi-nader', 'وسام أبي نادر', 'Wissam Abi Nader', 'm'),
  laraChidiac: person('lara-chidiac', 'لارا شدياق', 'Lara Chidiac', 'f'),
  elieMattar: person('elie-mattar', 'إيلي مطر', 'Elie Mattar', 'm'),
  ritaAoun: person('rita-aoun', 'ريتا عون', 'Rita Aoun', 'f'),
  tarekSalameh: person('tarek-salameh', 'طارق سلامة', 'Tarek Salameh', 'm'),
  nadimFrem: person('nadim-frem', 'نديم فريم', 'Nadim Frem', 'm'),
  sherifAbouSteit: person('sherif-abou-steit', 'شريف أبو ستيت', 'Sherif Abou Steit', 'm'),
  idrisMahgoub: person('idris-mahgoub', 'إدريس محجوب', 'Idris Mahgoub', 'm'),
  amirSorour: person('amir-sorour', 'أمير سرور', 'Amir Sorour', 'm'),
  aidaSherbiny: person('aida-el-sherbiny', 'عايدة الشربيني', 'Aida El Sherbiny', 'f'),
  medhatGhazouly: person('medhat-el-ghazouly', 'مدحت الغزولي', 'Medhat El Ghazouly', 'm'),
  hassanTorky: person('hassan-el-torky', 'حسن التركي', 'Hassan El Torky', 'm'),
  faisalMannai: person('faisal-al-mannai', 'فيصل المناعي', 'Faisal Al Mannai', 'm'),
  claireWhitmore: person('claire-whitmore', 'كلير ويتمور', 'Claire Whitmore', 'f', 'en'),
  thomasAshby: person('thomas-ashby', 'توماس آشبي', 'Thomas Ashby', 'm', 'en'),
};

// ---- Beats: one line of an episode's story ----

/** The Karmani family's story: a will, a perfume shop in Alexandria, an old vine over the house. */
const KARMA_BEATS: readonly Beat[] = [
  (a) => [`${a.name[0]} ${g(a, 'يكتشف', 'تكتشف')} رسالة قديمة مخبّأة في جدار البيت.`, `${a.name[1]} finds an old letter hidden in the wall of the house.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يواجه', 'تواجه')} ${b.name[0]} بحقيقة ما جرى ليلة الحريق.`, `${a.name[1]} confronts ${b.name[1]} with the truth about the night of the fire.`],
  (a, b) => [`خلاف على محل العطارة يفرّق بين ${a.name[0]} و${b.name[0]}.`, `A quarrel over the perfume shop drives ${a.name[1]} and ${b.name[1]} apart.`],
  (a) => [`${a.name[0]} ${g(a, 'يعود', 'تعود')} من السفر بخبر يقلب موازين العائلة.`, `${a.name[1]} comes back from abroad with news that upends the family.`],
  (a) => [`على مائدة الإفطار، ${g(a, 'يعلن', 'تعلن')} ${a.name[0]} قرارًا لم يتوقعه أحد.`, `At the iftar table, ${a.name[1]} announces a decision no one expected.`],
  (a, b) => [`${b.name[0]} ${g(b, 'يطلب', 'تطلب')} من ${a.name[0]} أن ${g(a, 'يختار', 'تختار')} بين البيت والحب.`, `${b.name[1]} asks ${a.name[1]} to choose between the house and love.`],
  () => ['المحامي يفتح الوصية، وفيها اسم لم يسمع به أحد.', 'The lawyer opens the will, and it names someone no one has heard of.'],
  (a) => [`${a.name[0]} ${g(a, 'يبحث', 'تبحث')} في سجلات الميناء عن سرّ الجدّ.`, `${a.name[1]} searches the harbour records for the grandfather's secret.`],
  (a, b) => [`ليلة عاصفة على الكورنيش تجمع ${a.name[0]} و${b.name[0]} من جديد.`, `A stormy night on the Corniche brings ${a.name[1]} and ${b.name[1]} together again.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يكتم', 'تكتم')} سرًّا عن ${b.name[0]} خوفًا على العائلة.`, `${a.name[1]} keeps a secret from ${b.name[1]} to protect the family.`],
  (a) => [`الكرمة القديمة تُقطع، و${a.name[0]} ${g(a, 'يقسم', 'تقسم')} أن ${g(a, 'يعرف', 'تعرف')} من فعلها.`, `The old vine is cut down, and ${a.name[1]} swears to find out who did it.`],
  (a, b) => [`${a.name[0]} و${b.name[0]} في مواجهة أخيرة قبل العيد.`, `${a.name[1]} and ${b.name[1]} face each other one last time before Eid.`],
];

const DRAMA_BEATS: readonly Beat[] = [
  (a) => [`${a.name[0]} ${g(a, 'يكتشف', 'تكتشف')} رسالة قديمة تغيّر كل ما ${g(a, 'يعرفه', 'تعرفه')} عن العائلة.`, `${a.name[1]} finds an old letter that changes everything ${g(a, 'he', 'she')} knew about the family.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يواجه', 'تواجه')} ${b.name[0]} بحقيقة ما جرى قبل سنوات.`, `${a.name[1]} confronts ${b.name[1]} with the truth about what happened years ago.`],
  (a, b) => [`خلاف على الميراث يفرّق بين ${a.name[0]} و${b.name[0]}.`, `A quarrel over the inheritance drives ${a.name[1]} and ${b.name[1]} apart.`],
  (a) => [`${a.name[0]} ${g(a, 'يعود', 'تعود')} من السفر بخبر يقلب موازين العائلة.`, `${a.name[1]} comes back from abroad with news that upends the family.`],
  (a) => [`على مائدة العشاء، ${g(a, 'يعلن', 'تعلن')} ${a.name[0]} قرارًا لم يتوقعه أحد.`, `At dinner, ${a.name[1]} announces a decision no one expected.`],
  (a, b) => [`${b.name[0]} ${g(b, 'يطلب', 'تطلب')} من ${a.name[0]} أن ${g(a, 'يختار', 'تختار')} بين العائلة والحب.`, `${b.name[1]} asks ${a.name[1]} to choose between family and love.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يكتم', 'تكتم')} سرًّا عن ${b.name[0]} خوفًا على العائلة.`, `${a.name[1]} keeps a secret from ${b.name[1]} to protect the family.`],
  (a, b) => [`ليلة عاصفة تجمع ${a.name[0]} و${b.name[0]} من جديد.`, `A stormy night brings ${a.name[1]} and ${b.name[1]} together again.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يدفع', 'تدفع')} ثمن وعد قديم ${g(a, 'قطعه', 'قطعته')} لـ${b.name[0]}.`, `${a.name[1]} pays the price of an old promise to ${b.name[1]}.`],
  (a) => [`شاهد جديد يظهر، و${a.name[0]} ${g(a, 'يجد نفسه', 'تجد نفسها')} في موقف لا يُحسد عليه.`, `A new witness appears, and ${a.name[1]} finds ${g(a, 'himself', 'herself')} in an unenviable position.`],
];

const COMEDY_BEATS: readonly Beat[] = [
  (a) => [`${a.name[0]} ${g(a, 'يحاول', 'تحاول')} إخفاء خطأ صغير، فيكبر حتى يعرف به الحيّ كله.`, `${a.name[1]} tries to hide a small mistake, which grows until the whole neighbourhood knows.`],
  (a, b) => [`زيارة مفاجئة من ${b.name[0]} تقلب خطط ${a.name[0]} للعطلة.`, `A surprise visit from ${b.name[1]} ruins ${a.name[1]}'s holiday plans.`],
  (a, b) => [`${a.name[0]} و${b.name[0]} في سباق على أفضل طبق في العزومة.`, `${a.name[1]} and ${b.name[1]} compete to cook the best dish at the family dinner.`],
  (a) => [`${a.name[0]} ${g(a, 'يقرر', 'تقرر')} أن ${g(a, 'يبدأ', 'تبدأ')} مشروعًا تجاريًّا من البيت.`, `${a.name[1]} decides to start a business from home.`],
  (a) => [`سوء تفاهم في قروب العائلة يجعل ${a.name[0]} ${g(a, 'يعتذر', 'تعتذر')} لكل الأقارب.`, `A misunderstanding in the family group chat has ${a.name[1]} apologising to every relative.`],
  (a, b) => [`${b.name[0]} ${g(b, 'يعلّم', 'تعلّم')} ${a.name[0]} قيادة السيارة، ولا ينجو أحد من الدرس.`, `${b.name[1]} teaches ${a.name[1]} to drive, and nobody survives the lesson.`],
  (a) => [`${a.name[0]} ${g(a, 'يفوز', 'تفوز')} بجائزة في مسابقة لم ${g(a, 'يشترك', 'تشترك')} فيها.`, `${a.name[1]} wins a prize in a contest ${g(a, 'he', 'she')} never entered.`],
  (a) => [`رحلة العائلة إلى البحر تتحول إلى مغامرة بسبب ${a.name[0]}.`, `The family trip to the beach turns into an adventure because of ${a.name[1]}.`],
];

const THRILLER_BEATS: readonly Beat[] = [
  (a) => [`جثة في مكان غير متوقع، و${a.name[0]} ${g(a, 'يتولى', 'تتولى')} القضية.`, `A body turns up where no one expected it, and ${a.name[1]} takes the case.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يتعقب', 'تتعقب')} ${b.name[0]} في شوارع المدينة ليلًا.`, `${a.name[1]} tails ${b.name[1]} through the city streets at night.`],
  () => ['ملف مفقود يعيد فتح قضية ظنّ الجميع أنها أُغلقت.', 'A missing file reopens a case everyone thought was closed.'],
  (a, b) => [`${b.name[0]} ${g(b, 'يعرض', 'تعرض')} على ${a.name[0]} صفقة خطيرة.`, `${b.name[1]} offers ${a.name[1]} a dangerous deal.`],
  (a, b) => [`${a.name[0]} ${g(a, 'يكتشف', 'تكتشف')} أن ${b.name[0]} ${g(b, 'يعمل', 'تعمل')} لحساب الخصم.`, `${a.name[1]} learns that ${b.name[1]} is working for the other side.`],
  () => ['مطاردة في الميناء تنتهي بلغز جديد.', 'A chase through the harbour ends in a new riddle.'],
  (a, b) => [`${a.name[0]} و${b.name[0]} أمام خيار واحد: الحقيقة أو النجاة.`, `${a.name[1]} and ${b.name[1]} face one choice: the truth, or getting out alive.`],
  (a) => [`رسالة مجهولة تقود ${a.name[0]} إلى مكان الجريمة الأولى.`, `An anonymous message leads ${a.name[1]} back to the scene of the first crime.`],
];

const KIDS_BEATS: readonly Beat[] = [
  (a, b) => [`مغامرة جديدة مع ${a.name[0]} و${b.name[0]}: البحث عن قطة ضائعة.`, `A new adventure for ${a.name[1]} and ${b.name[1]}: finding a lost cat.`],
  (a) => [`${a.name[0]} ${g(a, 'يتعلم أن يقول', 'تتعلم أن تقول')} الحقيقة حتى عندما تكون صعبة.`, `${a.name[1]} learns to tell the truth even when it is hard.`],
  () => ['رحلة إلى السوق تتحول إلى درس في الحساب.', 'A trip to the market turns into a maths lesson.'],
  (a) => [`${a.name[0]} ${g(a, 'يساعد', 'تساعد')} جارًا مسنًّا في زراعة حديقته.`, `${a.name[1]} helps an old neighbour plant his garden.`],
  (_a, b) => [`لغز في المدرسة، والحلّ عند ${b.name[0]}.`, `A puzzle at school, and ${b.name[1]} has the answer.`],
  () => ['يوم ممطر في البيت يصبح مهرجانًا من الألعاب.', 'A rainy day at home becomes a festival of games.'],
  (a, b) => [`طائرة ورقية من صنع ${a.name[0]} و${b.name[0]} تطير فوق الحيّ.`, `A kite made by ${a.name[1]} and ${b.name[1]} flies over the neighbourhood.`],
  (a) => [`${a.name[0]} ${g(a, 'يكتشف', 'تكتشف')} أن المشاركة تجعل الفرح أكبر.`, `${a.name[1]} discovers that sharing makes joy bigger.`],
];

// ---- The curated shows ----

const karma = {
  mansour: plays(P.faroukAdawy, 'الحاج منصور الكرماني', 'Hajj Mansour El Karmani', 'm', true),
  nafisa: plays(P.soheirBadry, 'نفيسة', 'Nafisa', 'f', true),
  youssef: plays(P.mouradSeyoufy, 'يوسف', 'Youssef', 'm', true),
  layla: plays(P.yasminaFawzy, 'ليلى', 'Layla', 'f', true),
  rashad: plays(P.hossamBanna, 'رشاد', 'Rashad', 'm'),
  dina: plays(P.nermineGammal, 'دينا', 'Dina', 'f'),
  shoukry: plays(P.adelKorashy, 'المحامي شكري', 'Shoukry the lawyer', 'm'),
};

const SHOWCASE_SHOWS: readonly ShowPlan[] = [
  {
    slug: 'beit-al-karma',
    title: ['بيت الكرمة', 'The House of the Vine'],
    description: [
      'ملحمة عائلية رمضانية في الإسكندرية: بعد رحيل الحاج منصور الكرماني تُفتح وصيته، فتتنازع العائلة على البيت القديم الذي تظلّله الكرمة وعلى محل العطارة في حيّ العطارين.',
      'A Ramadan family saga in Alexandria: when Hajj Mansour El Karmani\'s will is opened, his family fights over the old house under the vine and the perfume shop in the Attarine quarter.',
    ],
    genres: ['drama', 'ramadan', 'family'],
    ageRating: 'AGE_RATING_13',
    releaseYear: 2021,
    parts: [...Object.values(karma), directs(P.halaZeiny)],
    soundtrack: ['song-mohamed-mounir-shababeek', 'song-abdel-halim-hafez-ahwak', 'song-umm-kulthum-amal-hayati'],
    seasons: [
      { subtitle: ['الوصيّة', 'The Will'], description: ['وصية الحاج منصور تقسم البيت، وسرّ قديم يستيقظ.', 'Hajj Mansour\'s will divides the house, and an old secret wakes.'], firstAirDate: RAMADAN_STARTS[2021]!, everyDays: 1, episodes: 30 },
      { subtitle: ['العودة', 'The Return'], description: ['يوسف يعود من الغربة ليجد العائلة على حافة البيع.', 'Youssef comes home from abroad to find the family about to sell.'], firstAirDate: RAMADAN_STARTS[2022]!, everyDays: 1, episodes: 30 },
      { subtitle: ['الحصاد', 'The Harvest'], description: ['خمس عشرة حلقة أخيرة: لكل واحد من آل الكرماني حساب.', 'Fifteen last episodes: every Karmani settles accounts.'], firstAirDate: RAMADAN_STARTS[2023]!, everyDays: 1, episodes: 15 },
    ],
    minutes: [41, 47],
    audio: ['ar'],
    subtitles: ['ar', 'en', 'fr'],
    beats: KARMA_BEATS,
    episodeRatings: { '2-17': 'AGE_RATING_16' },
    guests: { '1-20': [plays(P.aidaSherbiny, 'الخالة بهية', 'Aunt Bahiya', 'f')], '3-15': [plays(P.aidaSherbiny, 'الخالة بهية', 'Aunt Bahiya', 'f')] },
  },
  {
    slug: 'diwaniyat-bu-saleh',
    title: ['ديوانية بو صالح', 'Bu Saleh\'s Diwaniya'],
    description: [
      'كوميديا كويتية عن بو صالح، المتقاعد الذي يدير شؤون الحيّ كله من ديوانيته، وعائلته التي لا تستشيره في شيء.',
      'A Kuwaiti comedy about Bu Saleh, a retiree who runs the whole neighbourhood from his diwaniya, and the family that never asks his opinion.',
    ],
    genres: ['comedy', 'khaleeji', 'family'],
    ageRating: 'AGE_RATING_7',
    releaseYear: 2019,
    parts: [
      plays(P.abdulazizHajri, 'بو صالح', 'Bu Saleh', 'm', true),
      plays(P.muniraSalem, 'أم صالح', 'Um Saleh', 'f', true),
      plays(P.fahadRashidan, 'صالح', 'Saleh', 'm', true),
      plays(P.shahadBalushi, 'نوف', 'Nouf', 'f'),
      plays(P.mishalDosari, 'مبارك', 'Mubarak', 'm'),
      plays(P.hessaAbdullah, 'الجدة موضي', 'Grandma Moudhi', 'f'),
      directs(P.talalMutairi),
    ],
    soundtrack: ['song-mohammed-abdu-majmouat-insan', 'song-mohammed-abdu-abaad'],
    seasons: [
      {
        description: ['بو صالح يكتشف أن التقاعد أصعب وظيفة في حياته.', 'Bu Saleh learns that retirement is the hardest job he has ever had.'], firstAirDate: '2019-10-03', everyDays: 7,
        episodes: [
          ['الجمعية', 'The Co-op', 'بو صالح يترشّح لمجلس إدارة الجمعية التعاونية ويعد أهل المنطقة بكل شيء.', 'Bu Saleh runs for the co-op board and promises the whole neighbourhood everything.'],
          ['قروب العائلة', 'The Family Group Chat', 'رسالة صوتية أُرسلت بالخطأ إلى قروب العائلة تشعل حربًا بين الأقارب.', 'A voice note sent to the family group chat by mistake starts a war among the relatives.'],
          ['الحمية', 'The Diet', 'أم صالح تفرض حمية على البيت كله، وبو صالح يخبّئ الكبسة في الديوانية.', 'Um Saleh puts the whole house on a diet, and Bu Saleh hides the kabsa in the diwaniya.'],
          ['الشاليه', 'The Chalet', 'عطلة نهاية أسبوع في شاليه مستأجر تنتهي بضيوف لم يدعُهم أحد.', 'A weekend at a rented chalet ends with guests nobody invited.'],
          ['السيارة الجديدة', 'The New Car', 'صالح يشتري سيارة رياضية بالتقسيط ويحاول إخفاءها عن أبيه.', 'Saleh buys a sports car on instalments and tries to hide it from his father.'],
          ['البرّ', 'Out in the Desert', 'رحلة تخييم في البرّ تتحول إلى بحث عن خيمة طارت مع الريح.', 'A camping trip in the desert turns into a hunt for a tent that blew away.'],
          ['الجار الجديد', 'The New Neighbour', 'مبارك يبني ديوانية أكبر من ديوانية بو صالح في البيت المقابل.', 'Mubarak builds a bigger diwaniya than Bu Saleh\'s across the street.'],
          ['عزيمة العيد', 'The Eid Feast', 'الجدة موضي تدعو العائلة كلها يوم العيد، وبو صالح يتكفّل بالذبيحة.', 'Grandma Moudhi invites the whole family for Eid, and Bu Saleh is in charge of the lamb.'],
          ['الدوام', 'Office Hours', 'بو صالح يعود إلى الوزارة يومًا واحدًا ويكتشف أن البيت أصعب منها.', 'Bu Saleh goes back to the ministry for a day and finds the house harder.'],
          ['المقلب', 'The Prank', 'نوف وصالح يدبّران مقلبًا لأبيهما فيرتدّ عليهما.', 'Nouf and Saleh play a prank on their father, and it backfires.'],
          ['الانتخابات', 'The Election', 'يوم التصويت في الجمعية، ولكل صوت في العائلة ثمن.', 'Election day at the co-op, and every vote in the family has a price.'],
          ['الديوانية المتنقلة', 'The Moving Diwaniya', 'البلدية تطلب إزالة الديوانية، فيحملها الرجال إلى البرّ.', 'The municipality orders the diwaniya removed, so the men carry it off to the desert.'],
        ],
      },
      {
        description: ['العائلة تكبر، والديوانية تضيق.', 'The family grows, and the diwaniya gets crowded.'], firstAirDate: '2020-10-01', everyDays: 7,
        episodes: [
          ['سفرة لندن', 'The London Trip', 'العائلة تسافر إلى لندن، وبو صالح يبحث عن مطعم يقدّم المجبوس.', 'The family goes to London, and Bu Saleh hunts for a restaurant that serves machboos.'],
          ['الخطوبة', 'The Engagement', 'صالح يريد أن يخطب، ولأمه قائمة شروط طويلة.', 'Saleh wants to get engaged, and his mother has a long list of conditions.'],
          ['المزرعة', 'The Farm', 'بو صالح يشتري مزرعة في الوفرة ولا يعرف شيئًا عن الزراعة.', 'Bu Saleh buys a farm in Wafra and knows nothing about farming.'],
          ['الديربي', 'The Derby', 'ديوانيتان ومباراة واحدة، والخاسر يدفع عشاء الفريقين.', 'Two diwaniyas, one match, and the losers buy dinner for both.'],
          ['الكهرباء', 'The Power Cut', 'انقطاع الكهرباء في عزّ الصيف يجمع الجيران في ديوانية واحدة.', 'A power cut at the height of summer brings the neighbours into one diwaniya.'],
          ['المشروع', 'The Start-up', 'نوف تطلق مشروع حلويات من المطبخ، والجدة موضي تطالب بنصيبها من الوصفة.', 'Nouf launches a sweets business from the kitchen, and Grandma Moudhi wants her share of the recipe.'],
          ['الغبقة', 'The Ghabga', 'أم صالح تقيم غبقة رمضانية تنافس بها جارتها.', 'Um Saleh throws a Ramadan ghabga to outdo her neighbour.'],
          ['المسابقة', 'The Quiz Show', 'بو صالح يشارك في برنامج مسابقات ويعتمد على مساعدة مبارك.', 'Bu Saleh goes on a TV quiz show, counting on Mubarak as his lifeline.'],
          ['الدكتور', 'The Doctor', 'بو صالح مقتنع بأنه مريض، والتحاليل كلها سليمة.', 'Bu Saleh is sure he is ill, and every test comes back clear.'],
          ['القرقيعان', 'Gergean', 'ليلة القرقيعان، والأطفال يكتشفون أن بو صالح نسي شراء الحلويات.', 'On Gergean night the children find out Bu Saleh forgot to buy the sweets.'],
          ['العرس', 'The Wedding', 'تحضيرات عرس صالح تخرج عن السيطرة.', 'The preparations for Saleh\'s wedding get out of hand.'],
          ['ديوانية الحيّ', 'The Neighbourhood Diwaniya', 'بو صالح ومبارك يتصالحان ويبنيان ديوانية واحدة للحيّ كله.', 'Bu Saleh and Mubarak make peace and build one diwaniya for the whole neighbourhood.'],
        ],
      },
    ],
    minutes: [26, 32],
    audio: ['ar'],
    subtitles: ['ar', 'en'],
  },
  {
    slug: 'ala-darb-al-qawafil',
    title: ['على درب القوافل', 'On the Caravan Road'],
    description: [
      'سلسلة وثائقية تتبع طرق التجارة القديمة في العالم العربي، في البرّ ثم في البحر، من ظفار إلى الإسكندرية.',
      'A documentary series that follows the old trade routes of the Arab world, overland and then by sea, from Dhofar to Alexandria.',
    ],
    genres: ['documentary', 'history', 'travel'],
    ageRating: 'AGE_RATING_ALL',
    releaseYear: 2022,
    parts: [plays(P.nabilKhatib, 'الراوي', 'Narrator', 'm', true), directs(P.ranaHaddadin)],
    soundtrack: ['song-marcel-khalife-jawaz-al-safar', 'song-sabah-fakhri-ya-mal-al-sham', 'song-fairuz-zahrat-al-madaen'],
    seasons: [
      {
        subtitle: ['طرق البرّ', 'Overland'], description: ['من طريق البخور إلى خانات حلب.', 'From the incense road to the khans of Aleppo.'], firstAirDate: '2022-01-07', everyDays: 7,
        episodes: [
          ['طريق البخور', 'The Incense Road', 'من ظفار إلى غزة: كيف صنع اللبان ثروة الممالك العربية القديمة.', 'From Dhofar to Gaza: how frankincense made the fortune of the old Arabian kingdoms.'],
          ['الحِجر', 'Hegra', 'مقابر منحوتة في الصخر تحكي قصة الأنباط عند أطراف مملكتهم الجنوبية.', 'Tombs carved into the rock tell the story of the Nabataeans at the southern edge of their kingdom.'],
          ['البتراء', 'Petra', 'المدينة الوردية التي جمعت القوافل وخزّنت الماء في قلب الصحراء.', 'The rose-red city that gathered the caravans and stored water in the heart of the desert.'],
          ['تدمر', 'Palmyra', 'واحة على طريق الحرير، ومملكة تحدّت روما.', 'An oasis on the Silk Road, and a kingdom that defied Rome.'],
          ['دمشق', 'Damascus', 'أسواق وخانات عاشت على تجارة القوافل ألف عام.', 'Souks and khans that lived on the caravan trade for a thousand years.'],
          ['حلب', 'Aleppo', 'خان الوزير والسوق المسقوف: آخر محطة قبل البحر.', 'The Khan al-Wazir and the covered souk: the last stop before the sea.'],
        ],
      },
      {
        subtitle: ['طرق البحر', 'By Sea'], description: ['موانئ الخليج والمحيط الهندي والبحر المتوسط.', 'The harbours of the Gulf, the Indian Ocean and the Mediterranean.'], firstAirDate: '2024-01-05', everyDays: 7,
        episodes: [
          ['مسقط', 'Muscat', 'ميناء بين الجبل والبحر، ومنه أبحرت السفن إلى الهند وشرق أفريقيا.', 'A harbour between mountain and sea, from which ships sailed to India and East Africa.'],
          ['صُحار', 'Sohar', 'المدينة التي يقال إنها مولد حكايات السندباد.', 'The city said to be the birthplace of the tales of Sindbad.'],
          ['عدن', 'Aden', 'بوابة البحر الأحمر وصهاريجها التي حفظت المطر.', 'The gateway to the Red Sea and its cisterns that kept the rain.'],
          ['زنجبار', 'Zanzibar', 'القرنفل والأبواب المنقوشة وأثر العُمانيين في الجزيرة.', 'Cloves, carved doors, and the mark Oman left on the island.'],
          ['البصرة', 'Basra', 'ملتقى النهرين والخليج، وسوق الشعر والتمر.', 'Where the rivers meet the Gulf: a market of poetry and dates.'],
          ['الإسكندرية', 'Alexandria', 'نهاية الرحلة في مدينة المنارة والمكتبة.', 'The journey\'s end in the city of the lighthouse and the library.'],
        ],
      },
    ],
    minutes: [48, 52],
    audio: ['ar', 'en'],
    subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'hikayat-al-tarab',
    title: ['حكايات الطرب', 'Tales of Tarab'],
    description: [
      'سلسلة وثائقية عن أصوات صنعت الأغنية العربية في القرن العشرين: حلقة لكل صوت، بأغانيه.',
      'A documentary series about the voices that made the Arabic song of the twentieth century: an episode for each voice, with its songs.',
    ],
    genres: ['documentary', 'music'],
    ageRating: 'AGE_RATING_ALL',
    releaseYear: 2024,
    parts: [plays(P.layalSaab, 'الراوية', 'Narrator', 'f', true), directs(P.omarJundi)],
    soundtrack: [
      'song-umm-kulthum-enta-omri', 'song-fairuz-zahrat-al-madaen', 'song-abdel-halim-hafez-qariat-al-fingan', 'song-mohammed-abdu-al-amaken',
      'song-warda-batwanes-beek', 'song-sabah-fakhri-qadduka-al-mayyas', 'song-kadim-al-sahir-zidini-ishqan', 'song-majida-el-roumi-kalimat',
    ],
    seasons: [{
      description: ['ثمانية أصوات، وثماني حكايات.', 'Eight voices, eight stories.'], firstAirDate: '2024-09-06', everyDays: 7,
      episodes: [
        ['كوكب الشرق', 'The Star of the East', 'أم كلثوم، من قرية طماي الزهايرة إلى مسارح العالم.', 'Umm Kulthum, from the village of Tamay al-Zahayra to the stages of the world.'],
        ['صوت الصباح', 'The Morning Voice', 'فيروز والأخوان رحباني ومسرح بيروت.', 'Fairuz, the Rahbani brothers and the Beirut stage.'],
        ['العندليب', 'The Nightingale', 'عبد الحليم حافظ وأغنية الخمسينيات والستينيات.', 'Abdel Halim Hafez and the song of the fifties and sixties.'],
        ['فنان العرب', 'The Artist of the Arabs', 'محمد عبده والأغنية الخليجية الحديثة.', 'Mohammed Abdu and the modern song of the Gulf.'],
        ['وردة الجزائرية', 'Warda of Algeria', 'من باريس إلى القاهرة، صوت جمع المغرب والمشرق.', 'From Paris to Cairo, a voice that joined the Maghreb and the Mashriq.'],
        ['قدود حلب', 'The Qudud of Aleppo', 'صباح فخري وفنّ الموشّح.', 'Sabah Fakhri and the art of the muwashshah.'],
        ['القيصر', 'The Caesar', 'كاظم الساهر وقصائد نزار قباني.', 'Kadim Al Sahir and the poems of Nizar Qabbani.'],
        ['صوت بيروت', 'The Voice of Beirut', 'ماجدة الرومي والقصيدة المغنّاة.', 'Majida El Roumi and the sung poem.'],
      ],
    }],
    minutes: [44, 50],
    audio: ['ar'],
    subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'fariq-al-fanous',
    title: ['فريق الفانوس', 'The Lantern Squad'],
    description: [
      'مسلسل رسوم متحركة: سارة وهادي وقطتهما زعفرانة يجدون فانوسًا سحريًّا يفتح لهم أبواب المغامرة.',
      'An animated series: Sara, Hadi and their cat Saffron find a magic lantern that opens the door to adventure.',
    ],
    genres: ['kids', 'animation', 'adventure'],
    ageRating: 'AGE_RATING_ALL',
    releaseYear: 2020,
    parts: [
      plays(P.rimKanaan, 'سارة', 'Sara', 'f', true),
      plays(P.ziadToukan, 'هادي', 'Hadi', 'm', true),
      plays(P.mayaNasr, 'القطة زعفرانة', 'Saffron the cat', 'f'),
      plays(P.anisBarakat, 'الجدّ سليم', 'Grandpa Salim', 'm'),
      directs(P.hindBelkadi),
    ],
    soundtrack: ['song-nancy-ajram-ya-tabtab', 'song-nancy-ajram-ya-salam'],
    seasons: [
      {
        description: ['الفانوس يضيء لأول مرة.', 'The lantern lights up for the first time.'], firstAirDate: '2020-09-05', everyDays: 7,
        episodes: [
          ['الفانوس السحري', 'The Magic Lantern', 'سارة وهادي يجدان في علّية الجدّ فانوسًا يضيء طريقًا إلى عوالم أخرى.', 'Sara and Hadi find a lantern in Grandpa\'s attic that lights a path to other worlds.'],
          ['مدينة النجوم', 'The City of Stars', 'الفريق يساعد نجمة صغيرة على العودة إلى السماء.', 'The squad helps a little star find its way back to the sky.'],
          ['سوق التوابل', 'The Spice Market', 'زعفرانة تضيع في سوق التوابل، والروائح هي الدليل.', 'Saffron gets lost in the spice market, and the smells are the clues.'],
          ['سفينة الورق', 'The Paper Boat', 'سباق قوارب ورقية على النهر يعلّم الفريق العمل معًا.', 'A paper-boat race on the river teaches the squad to work together.'],
          ['حارس المكتبة', 'The Library Keeper', 'كتاب هرب من المكتبة، ولا بد من إعادته قبل الغروب.', 'A book has run away from the library and must be back before sunset.'],
          ['الجبل الهامس', 'The Whispering Mountain', 'صدى غامض في الجبل يدعو الفريق إلى حلّ لغز.', 'A strange echo in the mountain calls the squad to solve a riddle.'],
          ['عيد الحصاد', 'The Harvest Festival', 'القرية تستعد للعيد، والفانوس يختفي فجأة.', 'The village gets ready for the festival, and the lantern suddenly disappears.'],
          ['البحر العميق', 'The Deep Sea', 'رحلة تحت الماء لإنقاذ سلحفاة عالقة.', 'An undersea trip to rescue a stranded turtle.'],
          ['الرياح الأربع', 'The Four Winds', 'الرياح تتخاصم، والفريق يصلح بينها.', 'The winds are quarrelling, and the squad makes peace between them.'],
          ['نور الفانوس', 'The Lantern\'s Light', 'سرّ الفانوس ينكشف أخيرًا.', 'The lantern\'s secret is revealed at last.'],
        ],
      },
      {
        description: ['عوالم جديدة خلف كل باب.', 'New worlds behind every door.'], firstAirDate: '2022-09-03', everyDays: 7,
        episodes: [
          ['الجسر المكسور', 'The Broken Bridge', 'الفريق يبني جسرًا ليعبر أهل القرية النهر.', 'The squad builds a bridge so the village can cross the river.'],
          ['حديقة الساعات', 'The Garden of Clocks', 'في حديقة تتوقف فيها الساعات، لكل دقيقة ثمن.', 'In a garden where the clocks stop, every minute has a price.'],
          ['الخطّاط الصغير', 'The Little Calligrapher', 'هادي يتعلم الخط العربي من قلم يتكلم.', 'Hadi learns Arabic calligraphy from a talking pen.'],
          ['قافلة الألوان', 'The Caravan of Colours', 'قافلة تحمل الألوان إلى مدينة رمادية.', 'A caravan carries colours to a grey city.'],
          ['النخلة العجوز', 'The Old Palm Tree', 'نخلة عمرها مئة عام تحكي قصص القرية.', 'A hundred-year-old palm tree tells the village\'s stories.'],
          ['لغز القمر', 'The Riddle of the Moon', 'القمر يختفي ليلة العيد، والفريق يبحث عنه.', 'The moon vanishes on the night of Eid, and the squad goes looking for it.'],
          ['صانع الطائرات الورقية', 'The Kite Maker', 'سارة تصمم طائرة ورقية تطير أعلى من الغيوم.', 'Sara designs a kite that flies higher than the clouds.'],
          ['المدينة تحت الرمال', 'The City Under the Sand', 'عاصفة رملية تكشف أبواب مدينة قديمة.', 'A sandstorm uncovers the gates of an ancient city.'],
          ['صوت العود', 'The Sound of the Oud', 'زعفرانة تتعلم أن تستمع قبل أن تتكلم.', 'Saffron learns to listen before she speaks.'],
          ['فانوس لكل بيت', 'A Lantern for Every House', 'الفريق يضيء القرية كلها في ليلة واحدة.', 'The squad lights up the whole village in one night.'],
        ],
      },
    ],
    minutes: [11, 13],
    audio: ['ar', 'en'],
    subtitles: ['ar', 'en'],
  },
  {
    slug: 'thill-al-madina',
    title: ['ظلّ المدينة', 'Shadow of the City'],
    description: [
      'مسلسل تشويق في بيروت: محقق عائد إلى مدينته وصحفية لا تخاف، وجريمة في المرفأ تفتح ملفات أغلقها الجميع.',
      'A Beirut thriller: an inspector back in his city, a fearless journalist, and a murder at the port that reopens files everyone had closed.',
    ],
    genres: ['thriller', 'crime', 'drama'],
    ageRating: 'AGE_RATING_16',
    releaseYear: 2022,
    parts: [
      plays(P.wissamAbiNader, 'المحقق كريم عازار', 'Inspector Karim Azar', 'm', true),
      plays(P.laraChidiac, 'نادين', 'Nadine', 'f', true),
      plays(P.elieMattar, 'سمير الحاج', 'Samir Al Hajj', 'm'),
      plays(P.ritaAoun, 'المحامية جنى', 'Jana, the lawyer', 'f'),
      plays(P.tarekSalameh, 'أبو رامي', 'Abu Rami', 'm'),
      directs(P.nadimFrem),
    ],
    soundtrack: ['song-mashrou-leila-roman', 'song-majida-el-roumi-ya-beirut', 'song-fairuz-li-beirut'],
    seasons: [
      {
        description: ['جثة في المرفأ، وثماني ليال لمعرفة الحقيقة.', 'A body at the port, and eight nights to find the truth.'], firstAirDate: '2022-10-13', everyDays: 7,
        episodes: [
          ['الليلة الأولى', 'The First Night', 'جثة في مرفأ بيروت، ومحقق عائد إلى مدينة لم يعد يعرفها.', 'A body at the port of Beirut, and an inspector back in a city he no longer knows.'],
          ['شاهد صامت', 'A Silent Witness', 'الشاهد الوحيد يرفض الكلام، ونادين تعرف السبب.', 'The only witness won\'t talk, and Nadine knows why.'],
          ['الحمرا', 'Hamra', 'خيط يقود كريم إلى ملهى قديم في شارع الحمرا.', 'A lead takes Karim to an old club on Hamra Street.'],
          ['الأرشيف', 'The Archive', 'ملف مفقود من أرشيف الشرطة يعيد فتح قضية قديمة.', 'A file missing from the police archive reopens an old case.'],
          ['ثمن الصمت', 'The Price of Silence', 'سمير الحاج يعرض صفقة لا تُرفض.', 'Samir Al Hajj makes an offer that can\'t be refused.'],
          ['الجبل', 'The Mountain', 'مطاردة على طرق الجبل في ليلة ثلج.', 'A chase on the mountain roads on a snowy night.'],
          ['خيانة', 'Betrayal', 'كريم يكتشف أن أحد رجاله يعمل لحساب الخصم.', 'Karim learns that one of his own men works for the other side.'],
          ['الفجر', 'Dawn', 'مواجهة أخيرة في المرفأ قبل طلوع الفجر.', 'A final showdown at the port before dawn.'],
        ],
      },
      {
        description: ['بعد عامين، القضية لم تُغلق.', 'Two years on, the case is still open.'], firstAirDate: '2024-10-10', everyDays: 7,
        episodes: [
          ['بعد عامين', 'Two Years Later', 'نادين تتلقى رسالة من رقم لم يكن يجب أن يعمل.', 'Nadine gets a message from a number that shouldn\'t work anymore.'],
          ['المحكمة', 'The Court', 'جنى تدافع عن متهم يعرف أكثر مما يقول.', 'Jana defends a man who knows more than he says.'],
          ['طرابلس', 'Tripoli', 'الخيط يمتد إلى أسواق طرابلس القديمة.', 'The trail leads into the old souks of Tripoli.'],
          ['الدَّين', 'The Debt', 'أبو رامي يطالب بدَين قديم.', 'Abu Rami calls in an old debt.'],
          ['الغرفة ٢١٧', 'Room 217', 'ليلة في فندق مهجور تكشف من كان يراقب كريم.', 'A night in an abandoned hotel reveals who has been watching Karim.'],
          ['الوجه الآخر', 'The Other Face', 'نادين تنشر ما لا يمكن سحبه.', 'Nadine publishes what cannot be taken back.'],
          ['الحصار', 'The Siege', 'المدينة كلها تبحث عن رجل واحد.', 'The whole city is looking for one man.'],
          ['ظلّ المدينة', 'Shadow of the City', 'الحقيقة كاملة، وثمنها.', 'The whole truth, and what it costs.'],
        ],
      },
    ],
    minutes: [46, 54],
    audio: ['ar'],
    subtitles: ['ar', 'en', 'fr'],
    episodeRatings: { '2-5': 'AGE_RATING_18' },
    guests: { '2-3': [plays(P.idrisMahgoub, 'الصيّاد', 'The fisherman', 'm')] },
  },
];

// ---- The curated films ----

const SHOWCASE_MOVIES: readonly MoviePlan[] = [
  {
    slug: 'sutouh-al-qahira', title: ['سطوح القاهرة', 'Cairo Rooftops'],
    description: [
      'مصمّمة شابة تستأجر غرفة على سطح عمارة في وسط البلد، فتكتشف أن جارها على السطح المقابل هو منافسها في العمل.',
      'A young designer rents a room on a rooftop in downtown Cairo and finds that the neighbour across the roofs is her rival at work.',
    ],
    genres: ['romance', 'comedy'], ageRating: 'AGE_RATING_13', releaseDate: '2019-11-21', minutes: 104,
    parts: [
      plays(P.yasminaFawzy, 'ملك', 'Malak', 'f', true), plays(P.mouradSeyoufy, 'آدم', 'Adam', 'm', true), plays(P.nermineGammal, 'هبة', 'Heba', 'f'),
      directs(P.sherifAbouSteit),
    ],
    soundtrack: ['song-amr-diab-tamally-maak', 'song-amr-diab-aktar-wahed', 'song-amr-diab-wala-ala-balo', 'song-nancy-ajram-akhasmak-ah'],
    audio: ['ar'], subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'akhir-qitar-ila-aswan', title: ['آخر قطار إلى أسوان', 'The Last Train to Aswan'],
    description: [
      'معلّم متقاعد يركب القطار الليلي إلى أسوان ليعيد إلى قريته النوبية صورة عمرها خمسون عامًا.',
      'A retired teacher takes the night train to Aswan to bring a fifty-year-old photograph back to his Nubian village.',
    ],
    genres: ['drama', 'family'], ageRating: 'AGE_RATING_7', releaseDate: '2016-03-10', minutes: 118,
    parts: [
      plays(P.faroukAdawy, 'الأستاذ عبدالرحيم', 'Abdel Rahim', 'm', true), plays(P.idrisMahgoub, 'جمال', 'Gamal', 'm', true),
      plays(P.soheirBadry, 'زينب', 'Zeinab', 'f'), plays(P.hossamBanna, 'حسن', 'Hassan', 'm'), directs(P.halaZeiny),
    ],
    soundtrack: ['song-mohamed-mounir-shababeek', 'song-mohamed-mounir-ali-soutak'],
    audio: ['ar'], subtitles: ['ar', 'en'],
  },
  {
    slug: 'rimal-al-rub-al-khali', title: ['رمال الربع الخالي', 'Sands of the Empty Quarter'],
    description: [
      'دليل صحراوي وباحثة في الجيولوجيا يعبران الربع الخالي بحثًا عن قافلة فُقدت قبل قرن.',
      'A desert guide and a geologist cross the Empty Quarter in search of a caravan lost a century ago.',
    ],
    genres: ['adventure', 'drama'], ageRating: 'AGE_RATING_13', releaseDate: '2023-12-14', minutes: 126,
    parts: [
      plays(P.mishalDosari, 'راشد', 'Rashed', 'm', true), plays(P.shahadBalushi, 'د. علياء', 'Dr. Alya', 'f', true),
      plays(P.abdulazizHajri, 'الشيخ حمد', 'Sheikh Hamad', 'm'), directs(P.talalMutairi),
    ],
    soundtrack: ['song-mohammed-abdu-al-amaken', 'song-mohammed-abdu-abaad'],
    audio: ['ar', 'en'], subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'sani-al-oud', title: ['صانع العود', 'The Oud Maker'],
    description: [
      'في ورشة صغيرة في حلب القديمة، صانع أعواد يعلّم حفيدته أن لكل خشب صوتًا.',
      'In a small workshop in old Aleppo, an oud maker teaches his granddaughter that every wood has its own voice.',
    ],
    genres: ['drama', 'music', 'family'], ageRating: 'AGE_RATING_ALL', releaseDate: '2018-09-06', minutes: 97,
    parts: [
      plays(P.anisBarakat, 'المعلّم نعمان', 'Master Noman', 'm', true), plays(P.rimKanaan, 'سلمى', 'Salma', 'f', true),
      plays(P.nabilKhatib, 'أبو خليل', 'Abu Khalil', 'm'), directs(P.omarJundi),
    ],
    soundtrack: ['song-sabah-fakhri-qadduka-al-mayyas', 'song-sabah-fakhri-ya-mal-al-sham', 'song-marcel-khalife-ummi'],
    audio: ['ar'], subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'layl-al-hamra', title: ['ليل الحمرا', 'Hamra Nights'],
    description: [
      'عازف جاز في بيروت يقبل عملًا لليلة واحدة في ملهى قديم، فيجد نفسه شاهدًا على جريمة.',
      'A Beirut jazz musician takes a one-night gig at an old club and becomes the witness to a crime.',
    ],
    genres: ['thriller', 'crime'], ageRating: 'AGE_RATING_18', releaseDate: '2021-06-17', minutes: 109,
    parts: [
      plays(P.elieMattar, 'طوني', 'Tony', 'm', true), plays(P.laraChidiac, 'مايا', 'Maya', 'f', true), plays(P.tarekSalameh, 'فريد', 'Farid', 'm'),
      directs(P.nadimFrem),
    ],
    soundtrack: ['song-mashrou-leila-lil-watan', 'song-mashrou-leila-roman', 'song-fairuz-li-beirut'],
    audio: ['ar'], subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'al-sikka-al-tawila', title: ['السكة الطويلة', 'The Long Road'],
    description: [
      'ثلاثة أصدقاء يقودون سيارة قديمة من القاهرة إلى سيوة ليفوا بوعد قطعوه لصديق رحل.',
      'Three friends drive an old car from Cairo to Siwa to keep a promise they made to a friend who is gone.',
    ],
    genres: ['drama', 'adventure'], ageRating: 'AGE_RATING_16', releaseDate: '2017-07-27', minutes: 112,
    parts: [
      plays(P.amirSorour, 'شادي', 'Shady', 'm', true), plays(P.adelKorashy, 'مصطفى', 'Mostafa', 'm', true), plays(P.nermineGammal, 'سارة', 'Sara', 'f'),
      directs(P.sherifAbouSteit),
    ],
    soundtrack: ['song-cairokee-el-sekka-shemal', 'song-cairokee-nas-we-nas', 'song-cairokee-ya-el-midan'],
    audio: ['ar'], subtitles: ['ar', 'en'],
  },
  {
    // Unrated, as many films of its age are: parental caps count it as AGE_RATING_18.
    slug: 'najmat-al-sabah', title: ['نجمة الصباح', 'The Morning Star'],
    description: [
      'مطربة شابة من الريف تصعد إلى نجومية القاهرة، وتدفع ثمن الشهرة من قلبها.',
      'A young singer from the countryside rises to stardom in Cairo and pays for fame with her heart.',
    ],
    genres: ['drama', 'romance', 'music', 'classic'], releaseDate: '1968-02-01', minutes: 132,
    parts: [
      plays(P.aidaSherbiny, 'نجمة', 'Negma', 'f', true), plays(P.medhatGhazouly, 'المايسترو فؤاد', 'Maestro Fouad', 'm', true),
      directs(P.hassanTorky),
    ],
    soundtrack: ['song-umm-kulthum-alf-leila-wa-leila', 'song-umm-kulthum-al-atlal', 'song-abdel-halim-hafez-sawah', 'song-abdel-halim-hafez-zay-el-hawa'],
    audio: ['ar'], subtitles: ['en'],
  },
  {
    slug: 'fanous-jeddi', title: ['فانوس جدّي', 'Grandpa\'s Lantern'],
    description: [
      'في ليلة من ليالي رمضان، يكتشف عمر أن فانوس جدّه القديم يحمل خريطة إلى كنز منسي في الحيّ.',
      'On a Ramadan night, Omar discovers that his grandfather\'s old lantern holds a map to a forgotten treasure in the neighbourhood.',
    ],
    genres: ['animation', 'kids', 'family'], ageRating: 'AGE_RATING_ALL', releaseDate: '2020-05-21', minutes: 84,
    parts: [
      plays(P.ziadToukan, 'عمر', 'Omar', 'm', true), plays(P.anisBarakat, 'الجدّ', 'Grandpa', 'm'), plays(P.mayaNasr, 'ياسمين', 'Yasmine', 'f'),
      directs(P.hindBelkadi),
    ],
    soundtrack: ['song-nancy-ajram-ya-salam', 'song-nancy-ajram-ya-tabtab'],
    audio: ['ar', 'en', 'fr'], subtitles: ['ar', 'en', 'fr'],
  },
  {
    slug: 'the-pearl-diver', title: ['غوّاص اللؤلؤ', 'The Pearl Diver'], originalLanguage: 'en',
    description: [
      'في البحرين في ثلاثينيات القرن الماضي، يخوض غوّاص شاب موسمه الأخير على مغاصات اللؤلؤ، بينما يصل اللؤلؤ المستزرع ليقضي على مهنته.',
      'In 1930s Bahrain, a young diver\'s last season on the pearl banks comes as cultured pearls arrive to end his trade.',
    ],
    genres: ['drama', 'history'], ageRating: 'AGE_RATING_13', releaseDate: '2022-10-06', minutes: 121,
    parts: [
      plays(P.faisalMannai, 'سالم', 'Salem', 'm', true), plays(P.claireWhitmore, 'إليانور هايز', 'Eleanor Hayes', 'f', true),
      plays(P.hessaAbdullah, 'أم سالم', 'Umm Salem', 'f'), directs(P.thomasAshby),
    ],
    soundtrack: ['song-mohammed-abdu-majmouat-insan'],
    audio: ['en', 'ar'], subtitles: ['ar', 'en'],
  },
];

// ---- The long tail ----

const PLACES: readonly Pair[] = [
  ['القاهرة', 'Cairo'], ['الإسكندرية', 'Alexandria'], ['دمشق', 'Damascus'], ['بيروت', 'Beirut'], ['عمّان', 'Amman'], ['بغداد', 'Baghdad'],
  ['الكويت', 'Kuwait City'], ['الرياض', 'Riyadh'], ['جدة', 'Jeddah'], ['دبي', 'Dubai'], ['الدوحة', 'Doha'], ['المنامة', 'Manama'],
  ['مسقط', 'Muscat'], ['تونس', 'Tunis'], ['الدار البيضاء', 'Casablanca'], ['فاس', 'Fez'], ['وهران', 'Oran'], ['القدس', 'Jerusalem'],
  ['حلب', 'Aleppo'], ['صنعاء', 'Sanaa'], ['الأقصر', 'Luxor'], ['طرابلس', 'Tripoli'], ['مراكش', 'Marrakesh'], ['الموصل', 'Mosul'],
];
const TAILS: readonly Pair[] = [
  ['الحارة', 'the Alley'], ['المدينة', 'the City'], ['البحر', 'the Sea'], ['النخيل', 'the Palms'], ['الصحراء', 'the Desert'], ['القصر', 'the Palace'],
  ['الجبل', 'the Mountain'], ['الميناء', 'the Harbour'], ['الوادي', 'the Valley'], ['الياسمين', 'Jasmine'], ['الزيتون', 'the Olive Trees'],
  ['السوق', 'the Souk'], ['النهر', 'the River'], ['الرمال', 'the Sands'], ['القلعة', 'the Citadel'], ['الغيم', 'the Clouds'], ['الضيعة', 'the Village'],
  ['الكورنيش', 'the Corniche'], ['الخان', 'the Khan'], ['الواحة', 'the Oasis'], ['الشتاء', 'Winter'],
];

interface ShowProfile {
  readonly genres: readonly string[];
  readonly weight: number;
  readonly heads: readonly Pair[];
  readonly seasons: readonly [number, number];
  readonly episodes: (random: Random) => number;
  readonly minutes: readonly [number, number];
  readonly ratings: readonly AgeRating[];
  /** One episode an evening from the first of Ramadan; otherwise weekly. */
  readonly ramadan: boolean;
  readonly style: 'drama' | 'comedy' | 'thriller' | 'kids' | 'documentary';
  readonly description: (place: Pair) => Pair;
}

const SHOW_PROFILES: readonly ShowProfile[] = [
  {
    genres: ['drama', 'ramadan'], weight: 0.3, style: 'drama', ramadan: true, seasons: [1, 3], episodes: (r) => r.pick([15, 30, 30]), minutes: [40, 48],
    ratings: ['AGE_RATING_13', 'AGE_RATING_13', 'AGE_RATING_16'],
    heads: [['أسرار', 'Secrets of'], ['ليالي', 'Nights of'], ['أبناء', 'Sons of'], ['بنات', 'Daughters of'], ['ظلال', 'Shadows of'], ['أسوار', 'Walls of'], ['نساء', 'Women of'], ['رجال', 'Men of']],
    description: (p) => [`مسلسل درامي رمضاني تدور أحداثه في ${p[0]}، عن عائلة تتنازعها الأسرار والمصالح.`, `A Ramadan drama set in ${p[1]}, about a family torn between secrets and ambitions.`],
  },
  {
    genres: ['comedy', 'family'], weight: 0.2, style: 'comedy', ramadan: false, seasons: [1, 4], episodes: (r) => r.int(10, 20), minutes: [24, 32],
    ratings: ['AGE_RATING_7', 'AGE_RATING_7', 'AGE_RATING_13'],
    heads: [['يوميات', 'Diaries of'], ['جيران', 'Neighbours of'], ['شلّة', 'The Gang of'], ['عيال', 'Kids of'], ['حكايات', 'Tales of']],
    description: (p) => [`مسلسل كوميدي عن يوميات عائلة وجيرانها في ${p[0]}.`, `A comedy about the daily life of a family and its neighbours in ${p[1]}.`],
  },
  {
    genres: ['documentary', 'travel'], weight: 0.15, style: 'documentary', ramadan: false, seasons: [1, 2], episodes: (r) => r.int(4, 8), minutes: [44, 52],
    ratings: ['AGE_RATING_ALL', 'AGE_RATING_ALL', 'AGE_RATING_7'],
    heads: [['كنوز', 'Treasures of'], ['عجائب', 'Wonders of'], ['ذاكرة', 'Memory of'], ['حرّاس', 'Guardians of']],
    description: () => ['سلسلة وثائقية تجول في مدن العالم العربي وتحكي تاريخها وناسها.', 'A documentary series that travels the cities of the Arab world and tells their history and their people.'],
  },
  {
    genres: ['kids', 'animation'], weight: 0.15, style: 'kids', ramadan: false, seasons: [1, 3], episodes: (r) => r.int(10, 26), minutes: [11, 13],
    ratings: ['AGE_RATING_ALL'],
    heads: [['مغامرات', 'Adventures in'], ['أحلام', 'Dreams of'], ['أصدقاء', 'Friends of']],
    description: () => ['مسلسل رسوم متحركة للأطفال عن الصداقة والفضول والمغامرة.', 'An animated series for children about friendship, curiosity and adventure.'],
  },
  {
    genres: ['thriller', 'crime'], weight: 0.2, style: 'thriller', ramadan: false, seasons: [1, 3], episodes: (r) => r.int(6, 10), minutes: [44, 56],
    ratings: ['AGE_RATING_16', 'AGE_RATING_16', 'AGE_RATING_18'],
    heads: [['صمت', 'Silence of'], ['مفاتيح', 'Keys of'], ['أبواب', 'Gates of'], ['نار', 'Fire of'], ['حرّاس', 'Guardians of']],
    description: (p) => [`مسلسل تشويق وجريمة في شوارع ${p[0]}، حيث لا أحد كما يبدو.`, `A crime thriller in the streets of ${p[1]}, where no one is what they seem.`],
  },
];

const STYLE_BEATS: Record<Exclude<ShowProfile['style'], 'documentary'>, readonly Beat[]> = {
  drama: DRAMA_BEATS, comedy: COMEDY_BEATS, thriller: THRILLER_BEATS, kids: KIDS_BEATS,
};

type Noun = readonly [arabic: string, english: string, gender: Gender];
const FILM_NOUNS: readonly Noun[] = [
  ['ليلة', 'Night', 'f'], ['صيف', 'Summer', 'm'], ['طريق', 'Road', 'm'], ['قمر', 'Moon', 'm'], ['رسالة', 'Letter', 'f'], ['وعد', 'Promise', 'm'],
  ['حلم', 'Dream', 'm'], ['نافذة', 'Window', 'f'], ['مدينة', 'City', 'f'], ['ساعة', 'Hour', 'f'], ['شتاء', 'Winter', 'm'], ['قلب', 'Heart', 'm'],
  ['رحلة', 'Journey', 'f'], ['عاصفة', 'Storm', 'f'], ['جسر', 'Bridge', 'm'], ['غرفة', 'Room', 'f'], ['أغنية', 'Song', 'f'], ['حكاية', 'Tale', 'f'],
];
const FILM_ADJECTIVES: readonly (readonly [masculine: string, feminine: string, english: string])[] = [
  ['الأخير', 'الأخيرة', 'Last'], ['الطويل', 'الطويلة', 'Long'], ['البعيد', 'البعيدة', 'Distant'], ['الأول', 'الأولى', 'First'], ['الصامت', 'الصامتة', 'Silent'],
  ['المكسور', 'المكسورة', 'Broken'], ['الذهبي', 'الذهبية', 'Golden'], ['الضائع', 'الضائعة', 'Lost'], ['الأزرق', 'الزرقاء', 'Blue'], ['الأحمر', 'الحمراء', 'Red'],
  ['الغريب', 'الغريبة', 'Strange'], ['القديم', 'القديمة', 'Old'], ['الهادئ', 'الهادئة', 'Quiet'], ['المنسي', 'المنسية', 'Forgotten'],
];

interface MovieProfile {
  readonly genres: readonly string[];
  readonly weight: number;
  readonly ratings: readonly AgeRating[];
  readonly minutes: readonly [number, number];
  readonly voices?: boolean;
  readonly description: (place: Pair) => Pair;
}
const MOVIE_PROFILES: readonly MovieProfile[] = [
  { genres: ['drama'], weight: 0.25, ratings: ['AGE_RATING_7', 'AGE_RATING_13', 'AGE_RATING_16'], minutes: [90, 140],
    description: (p) => [`دراما عن عائلة في ${p[0]} تواجه أصعب قرار في حياتها.`, `A drama about a family in ${p[1]} facing the hardest decision of its life.`] },
  { genres: ['comedy'], weight: 0.2, ratings: ['AGE_RATING_ALL', 'AGE_RATING_7', 'AGE_RATING_13'], minutes: [85, 110],
    description: (p) => [`كوميديا عن صديقين في ${p[0]} يحاولان تنفيذ خطة لا يمكن أن تنجح.`, `A comedy about two friends in ${p[1]} trying to pull off a plan that cannot work.`] },
  { genres: ['romance', 'drama'], weight: 0.12, ratings: ['AGE_RATING_13', 'AGE_RATING_16'], minutes: [90, 125],
    description: (p) => [`قصة حب في ${p[0]} تبدأ برسالة وصلت إلى العنوان الخطأ.`, `A love story in ${p[1]} that begins with a letter delivered to the wrong address.`] },
  { genres: ['thriller'], weight: 0.12, ratings: ['AGE_RATING_16', 'AGE_RATING_18'], minutes: [95, 130],
    description: (p) => [`تشويق في ${p[0]}: ليلة واحدة، وسرّ يجب ألّا يُكشف.`, `A thriller in ${p[1]}: one night, and a secret that must not come out.`] },
  { genres: ['action'], weight: 0.1, ratings: ['AGE_RATING_13', 'AGE_RATING_16', 'AGE_RATING_18'], minutes: [95, 135],
    description: (p) => [`مطاردة عبر ${p[0]} لاستعادة ما سُرق قبل فوات الأوان.`, `A chase across ${p[1]} to recover what was stolen before it is too late.`] },
  { genres: ['history', 'drama'], weight: 0.08, ratings: ['AGE_RATING_13', 'AGE_RATING_16'], minutes: [120, 165],
    description: (p) => [`ملحمة تاريخية عن ${p[0]} في زمن التحولات الكبرى.`, `A historical epic about ${p[1]} in a time of great change.`] },
  { genres: ['animation', 'kids'], weight: 0.08, ratings: ['AGE_RATING_ALL', 'AGE_RATING_7'], minutes: [78, 95], voices: true,
    description: (p) => [`فيلم رسوم متحركة عن طفلة من ${p[0]} تكتشف عالمًا سحريًّا.`, `An animated film about a girl from ${p[1]} who discovers a magical world.`] },
  { genres: ['documentary'], weight: 0.05, ratings: ['AGE_RATING_ALL', 'AGE_RATING_7'], minutes: [70, 100],
    description: (p) => [`فيلم وثائقي عن ناس ${p[0]} وحكاياتهم.`, `A documentary about the people of ${p[1]} and their stories.`] },
];

const ACTOR_FIRST: Readonly<Record<Gender, readonly Pair[]>> = {
  m: [
    ['كريم', 'Karim'], ['طارق', 'Tarek'], ['ياسر', 'Yasser'], ['هشام', 'Hisham'], ['باسل', 'Basel'], ['سامر', 'Samer'], ['نادر', 'Nader'],
    ['عماد', 'Imad'], ['أنس', 'Anas'], ['مازن', 'Mazen'], ['جاد', 'Jad'], ['رامز', 'Ramez'], ['فراس', 'Firas'], ['خالد', 'Khaled'],
    ['ماجد', 'Majed'], ['سيف', 'Saif'], ['حازم', 'Hazem'], ['بلال', 'Bilal'], ['زياد', 'Ziad'], ['معتز', 'Moataz'],
  ],
  f: [
    ['لينا', 'Lina'], ['رنا', 'Rana'], ['هبة', 'Heba'], ['سلمى', 'Salma'], ['دانة', 'Dana'], ['ريم', 'Reem'], ['منى', 'Mona'],
    ['جود', 'Joud'], ['ليان', 'Layan'], ['نور', 'Nour'], ['سارة', 'Sara'], ['مريم', 'Mariam'], ['رهف', 'Rahaf'], ['نادين', 'Nadine'],
    ['غادة', 'Ghada'], ['سمر', 'Samar'], ['وفاء', 'Wafaa'], ['ديما', 'Dima'], ['تالا', 'Tala'], ['جنى', 'Jana'],
  ],
};
const ACTOR_FAMILY: readonly Pair[] = [
  ['العطّار', 'Al Attar'], ['الجوهري', 'El Gohary'], ['النقيب', 'El Nakib'], ['الحلبي', 'Al Halabi'], ['العمري', 'Al Omari'], ['الزعبي', 'Al Zoubi'],
  ['القاسمي', 'Al Qasimi'], ['الطحّان', 'Al Tahhan'], ['الصبّاغ', 'Al Sabbagh'], ['الكردي', 'Al Kurdi'], ['البيطار', 'Al Bitar'], ['التميمي', 'Al Tamimi'],
  ['الشهري', 'Al Shehri'], ['الغامدي', 'Al Ghamdi'], ['المرزوقي', 'Al Marzouqi'], ['بنسعيد', 'Bensaid'], ['العلوي', 'Alaoui'], ['الفاسي', 'El Fassi'],
  ['الحمداني', 'Al Hamdani'], ['السويدي', 'Al Suwaidi'], ['النجّار', 'Al Najjar'], ['الدبّاغ', 'Al Dabbagh'], ['عيسى', 'Issa'], ['رزق', 'Rizk'], ['سالم', 'Salem'],
];
const CHARACTERS: Readonly<Record<Gender, readonly Pair[]>> = {
  m: [
    ['الحاج عبدالله', 'Hajj Abdullah'], ['أبو سمير', 'Abu Samir'], ['العمّ فتحي', 'Uncle Fathi'], ['سليم', 'Salim'], ['عادل', 'Adel'], ['جابر', 'Gaber'],
    ['يحيى', 'Yahya'], ['منير', 'Mounir'], ['رؤوف', 'Raouf'], ['حمدي', 'Hamdi'], ['فيصل', 'Faisal'], ['عزيز', 'Aziz'], ['نبيل', 'Nabil'], ['مهدي', 'Mahdi'],
  ],
  f: [
    ['الست وداد', 'Sitt Widad'], ['أم علي', 'Umm Ali'], ['نوال', 'Nawal'], ['سعاد', 'Souad'], ['فريدة', 'Farida'], ['زينب', 'Zeinab'], ['حياة', 'Hayat'],
    ['أمل', 'Amal'], ['ليلى', 'Layla'], ['عبير', 'Abeer'], ['شهد', 'Shahd'], ['بسمة', 'Basma'], ['روان', 'Rawan'], ['نجلاء', 'Naglaa'],
  ],
};
const NARRATOR: Readonly<Record<Gender, Pair>> = { m: ['الراوي', 'Narrator'], f: ['الراوية', 'Narrator'] };

/** The long tail's actors: distinct names for the first 800 (20 first names a gender by 25 family names, then the same again). */
function tailPerson(index: number): Person {
  const gender: Gender = index % 2 === 0 ? 'm' : 'f';
  const j = Math.floor(index / 2);
  const firsts = ACTOR_FIRST[gender];
  const first = firsts[j % firsts.length]!;
  const family = ACTOR_FAMILY[(Math.floor(j / firsts.length) + (j % firsts.length) * 3) % ACTOR_FAMILY.length]!;
  return { id: `person-${index + 1}`, name: [`${first[0]} ${family[0]}`, `${first[1]} ${family[1]}`], gender };
}

/** How many shows and films the demo has: the curated ones, and a long tail of 100 shows and 200 films per 50,000 songs. */
export function demoVideoSize(songs: number) {
  return {
    shows: SHOWCASE_SHOWS.length + Math.max(2, Math.round(songs / 500)),
    movies: SHOWCASE_MOVIES.length + Math.max(3, Math.round(songs / 250)),
  };
}

export interface DemoVideoOptions {
  readonly songs: number;
  /** The video's own random stream: the music's records do not change with it. */
  readonly random: Random;
  /** Whether the known artists' songs are in the catalog: the curated soundtracks list them; else generated songs stand in. */
  readonly knownArtists: boolean;
  /** Generated Arabic songs, for the long tail's soundtracks (and the curated ones' without the known artists). */
  readonly soundtrackPool: readonly string[];
}

/** The video records, each after what it references: a show, its seasons, their episodes; then the films. */
export function* demoVideoRecords(options: DemoVideoOptions): Generator<ImportRecord> {
  const { random, soundtrackPool } = options;
  const known = new Set(knownSongs().map((song) => song.id));
  const standIn = (i: number) => soundtrackPool[(i * 37) % Math.max(1, soundtrackPool.length)];
  const curatedSoundtrack = (songIds: readonly string[], offset: number): string[] => songIds.map((id, i) => {
    if (!known.has(id)) throw new Error(`demo-video: the soundtrack names ${id}, which is not a known artist's song`);
    return options.knownArtists ? id : standIn(offset + i);
  }).filter((id): id is string => id !== undefined);

  for (const [i, plan] of SHOWCASE_SHOWS.entries()) yield* showRecords(plan, `show-${plan.slug}`, curatedSoundtrack(plan.soundtrack, i * 10), random);

  // The long tail: titles drawn without repeats until a pool is used up, so the catalog reads like a real one.
  const people = Math.min(800, 40 + Math.round(options.songs / 200));
  const castPick = (n: number) => {
    const chosen = new Set<number>();
    while (chosen.size < Math.min(n, people)) chosen.add(random.int(0, people - 1));
    return [...chosen].map(tailPerson);
  };
  /** Parts for a cast: two leads, then supporting parts, each a different character; the last person directs. */
  const partsOf = (cast: readonly Person[]): Part[] => {
    const taken = new Set<string>();
    return cast.map((who, i) => {
      if (i === cast.length - 1) return directs(who);
      let name = random.pick(CHARACTERS[who.gender]);
      while (taken.has(name[0])) name = random.pick(CHARACTERS[who.gender]);
      taken.add(name[0]);
      return plays(who, name[0], name[1], who.gender, i < 2);
    });
  };
  const takenTitles = new Set([...SHOWCASE_SHOWS, ...SHOWCASE_MOVIES].flatMap((plan) => plan.title));
  const freshTitle = (candidates: () => Pair): Pair => {
    let title = candidates();
    for (let attempt = 0; attempt < 8 && (takenTitles.has(title[0]) || takenTitles.has(title[1])); attempt++) title = candidates();
    takenTitles.add(title[0]).add(title[1]);
    return title;
  };
  const tailSoundtrack = () => {
    if (soundtrackPool.length === 0 || !random.chance(0.45)) return [];
    const songs = new Set(Array.from({ length: random.int(1, 4) }, () => random.pick(soundtrackPool)));
    if (options.knownArtists && random.chance(0.3)) songs.add(random.pick([...known]));
    return [...songs];
  };
  const pickWeighted = <T extends { weight: number }>(profiles: readonly T[]): T => {
    let roll = random.next();
    for (const profile of profiles) if ((roll -= profile.weight) < 0) return profile;
    return profiles[profiles.length - 1]!;
  };

  const size = demoVideoSize(options.songs);
  for (let n = 1; n <= size.shows - SHOWCASE_SHOWS.length; n++) {
    const profile = pickWeighted(SHOW_PROFILES);
    const title = freshTitle(() => { const head = random.pick(profile.heads); const tail = random.pick(TAILS); return [`${head[0]} ${tail[0]}`, `${head[1]} ${tail[1]}`]; });
    const place = random.pick(PLACES);
    const seasons = random.int(profile.seasons[0], profile.seasons[1]);
    // A Ramadan series' last season airs by Ramadan 2026; a weekly one's starts by the end of 2025.
    const firstYear = random.int(2005, LAST_YEAR - seasons + (profile.ramadan ? 1 : 0));
    const firstDay = `${firstYear}-${pad2(random.int(1, 12))}-${pad2(random.int(1, 28))}`;
    const cast = castPick(profile.style === 'documentary' ? 2 : profile.style === 'kids' ? 4 : random.int(4, 6));
    const parts: Part[] = profile.style === 'documentary'
      ? [{ person: cast[0]!, character: { name: NARRATOR[cast[0]!.gender], gender: cast[0]!.gender }, lead: true }, directs(cast[1]!)]
      : partsOf(cast);
    const rating = random.chance(0.04) ? undefined : random.pick(profile.ratings);
    const plan: ShowPlan = {
      slug: String(n), title, description: profile.description(place), genres: profile.genres, ...(rating ? { ageRating: rating } : {}),
      releaseYear: firstYear, parts, soundtrack: [],
      seasons: Array.from({ length: seasons }, (_, s): SeasonPlan => {
        const count = profile.episodes(random);
        return {
          description: s === 0 ? profile.description(place) : [`تستمر الحكاية في ${seasonWord(s + 1)[0]}.`, `The story goes on in season ${s + 1}.`],
          firstAirDate: profile.ramadan ? RAMADAN_STARTS[firstYear + s]! : addDays(firstDay, 365 * s),
          everyDays: profile.ramadan ? 1 : 7,
          // A documentary's episodes are its places; the others' are numbered and told by their show's beats.
          episodes: profile.style === 'documentary'
            ? Array.from({ length: count }, (): NamedEpisode => {
                const visit = random.pick(PLACES);
                return [visit[0], visit[1], `رحلة إلى ${visit[0]}: ناسها وأسواقها وما بقي من تاريخها.`, `A journey to ${visit[1]}: its people, its markets and what remains of its past.`];
              })
            : count,
        };
      }),
      minutes: profile.minutes,
      audio: profile.style === 'kids' ? ['ar', 'en'] : ['ar'],
      subtitles: random.chance(0.5) ? ['ar', 'en'] : ['ar', 'en', 'fr'],
      ...(profile.style === 'documentary' ? {} : { beats: STYLE_BEATS[profile.style] }),
    };
    yield* showRecords(plan, `show-${n}`, tailSoundtrack(), random);
  }

  for (const [i, plan] of SHOWCASE_MOVIES.entries()) yield movieRecord(plan, `movie-${plan.slug}`, curatedSoundtrack(plan.soundtrack, 100 + i * 10), random);

  for (let n = 1; n <= size.movies - SHOWCASE_MOVIES.length; n++) {
    const profile = pickWeighted(MOVIE_PROFILES);
    const english = !profile.voices && random.chance(0.08);
    const title = freshTitle(() => {
      const noun = random.pick(FILM_NOUNS);
      const adjective = random.pick(FILM_ADJECTIVES);
      return [`ال${noun[0]} ${noun[2] === 'm' ? adjective[0] : adjective[1]}`, `The ${adjective[2]} ${noun[1]}`];
    });
    // Most films are recent; a few are from the sixties on.
    const year = LAST_YEAR - 1 - Math.floor(60 * random.next() ** 2);
    const cast = castPick(random.int(3, 5));
    const language = english ? 'en' : 'ar';
    const parts = partsOf(cast);
    // Older films often came without a rating; so do a few new ones.
    const rating = random.chance(year < 1985 ? 0.4 : 0.03) ? undefined : random.pick(profile.ratings);
    const plan: MoviePlan = {
      slug: String(n), title, description: profile.description(random.pick(PLACES)), ...(english ? { originalLanguage: 'en' as const } : {}),
      genres: profile.genres, ...(rating ? { ageRating: rating } : {}),
      releaseDate: `${year}-${pad2(random.int(1, 12))}-${pad2(random.int(1, 28))}`,
      minutes: random.int(profile.minutes[0], profile.minutes[1]), parts, soundtrack: [],
      audio: english ? ['en', 'ar'] : profile.voices ? ['ar', 'en', 'fr'] : ['ar'],
      subtitles: random.chance(0.5) ? ['ar', 'en'] : ['ar', 'en', 'fr'],
    };
    yield movieRecord(plan, `movie-${n}`, tailSoundtrack(), random, language);
  }
}

function* showRecords(plan: ShowPlan, id: string, soundtrack: readonly string[], random: Random): Generator<ImportRecord> {
  yield {
    kind: 'show', id, title: texts(plan.title), originalLanguage: 'ar', description: texts(plan.description), genres: [...plan.genres],
    ...(plan.ageRating ? { ageRating: plan.ageRating } : {}), releaseYear: plan.releaseYear, cast: castOf(plan.parts, 'ar'),
    artwork: titleArtwork('shows', id), soundtrack: [...soundtrack],
  } satisfies ShowRecord;
  const characters = plan.parts.flatMap((part) => (part.character ? [part.character] : []));
  const leads = plan.parts.filter((part) => part.lead && part.character).map((part) => part.character!);
  for (const [s, season] of plan.seasons.entries()) {
    const seasonNumber = s + 1;
    const seasonId = `season-${id.slice('show-'.length)}-${seasonNumber}`;
    const word = seasonWord(seasonNumber);
    const title: Pair = season.subtitle ? [`${word[0]}: ${season.subtitle[0]}`, `${word[1]}: ${season.subtitle[1]}`] : word;
    yield {
      kind: 'season', id: seasonId, showId: id, seasonNumber, title: texts(title), originalLanguage: 'ar', description: texts(season.description),
      airDate: season.firstAirDate, artwork: seasonArtwork(seasonId),
    } satisfies SeasonRecord;
    const count = typeof season.episodes === 'number' ? season.episodes : season.episodes.length;
    for (let e = 1; e <= count; e++) {
      const episodeId = `episode-${id.slice('show-'.length)}-${seasonNumber}-${e}`;
      const named = typeof season.episodes === 'number' ? undefined : season.episodes[e - 1]!;
      let episodeTitle: Pair;
      let description: Pair;
      if (named) {
        episodeTitle = [named[0], named[1]];
        description = [named[2], named[3]];
      } else {
        episodeTitle = [`الحلقة ${arabicNumber(e)}`, `Episode ${e}`];
        const beats = plan.beats ?? DRAMA_BEATS;
        const a = random.chance(0.6) && leads.length > 0 ? random.pick(leads) : random.pick(characters);
        const others = characters.filter((c) => c !== a);
        description = beats[(e * 7 + seasonNumber * 3) % beats.length]!(a, others.length > 0 ? random.pick(others) : a);
      }
      const durationMs = minutes(random.int(plan.minutes[0], plan.minutes[1])) + random.int(0, 59) * 1000;
      const key = `${seasonNumber}-${e}`;
      const guests = plan.guests?.[key];
      const ownRating = plan.episodeRatings?.[key];
      yield {
        kind: 'episode', id: episodeId, seasonId, showId: id, episodeNumber: e, title: texts(episodeTitle), originalLanguage: 'ar',
        description: texts(description), durationMs, airDate: addDays(season.firstAirDate, (e - 1) * season.everyDays),
        ...(guests ? { guestCast: castOf(guests, 'ar') } : {}),
        artwork: episodeArtwork(episodeId), audioLanguages: [...plan.audio], subtitleLanguages: [...plan.subtitles],
        ...(ownRating ? { ageRating: ownRating } : {}),
        // The end credits: a minute or two, longer on a long episode.
        creditsStartMs: durationMs - random.int(45, plan.minutes[0] > 30 ? 150 : 60) * 1000,
      } satisfies EpisodeRecord;
    }
  }
}

function movieRecord(plan: MoviePlan, id: string, soundtrack: readonly string[], random: Random, castLanguage?: 'ar' | 'en'): MovieRecord {
  const language = plan.originalLanguage ?? 'ar';
  const durationMs = minutes(plan.minutes) + random.int(0, 59) * 1000;
  return {
    kind: 'movie', id, title: texts(plan.title, language), originalLanguage: language, description: texts(plan.description, language),
    genres: [...plan.genres], ...(plan.ageRating ? { ageRating: plan.ageRating } : {}), releaseDate: plan.releaseDate, durationMs,
    cast: castOf(plan.parts, castLanguage ?? language), artwork: titleArtwork('movies', id), audioLanguages: [...plan.audio],
    subtitleLanguages: [...plan.subtitles],
    // A film's end credits run several minutes.
    creditsStartMs: durationMs - random.int(240, 540) * 1000,
    soundtrack: [...soundtrack],
  };
}
