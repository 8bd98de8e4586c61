// The search-quality catalog: real, well-known Arab, French and English
// artists and songs, stored the way a catalog holds them (Arabic items in
// Arabic script, some with one official Latin spelling, Western items in Latin
// only), plus distractors that share words or sounds with them. And the
// queries people type, grouped by the rule of contract section 11 that should
// find the wanted item. Shared by bench/search-quality (Maqam against MiniSearch
// and Orama) and the CI check in packages/server/test/search/quality.test.ts.
import type { ImportRecord } from '@maqam/contract';

type Texts = Record<string, string>;

function artist(id: string, name: Texts, monthlyListeners: number): ImportRecord {
  return {
    kind: 'artist', id, name, originalLanguage: 'ar' in name ? 'ar' : Object.keys(name)[0]!, genres: [], followerCount: monthlyListeners,
    monthlyListeners, isVerified: true, socialLinks: [], artwork: [], nationality: '',
  };
}

function album(id: string, title: Texts, artistIds: string[]): ImportRecord {
  return { kind: 'album', id, title, originalLanguage: 'ar' in title ? 'ar' : Object.keys(title)[0]!, artistIds, releaseDate: '2000-01-01', artwork: [] };
}

function song(id: string, title: Texts, artistIds: string[], popularity: number): ImportRecord {
  return {
    kind: 'song', id, title, originalLanguage: 'ar' in title ? 'ar' : Object.keys(title)[0]!, artistIds, albumId: `album-${artistIds[0]}`,
    durationMs: 240_000, trackNumber: 1, discNumber: 1, releaseDate: '2000-01-01', genres: [], isExplicit: false, isrc: '', popularity, artwork: [],
    previewUrl: '',
  } as ImportRecord;
}

const ARTISTS: [string, Texts, number][] = [
  ['umm-kulthum', { ar: 'أم كلثوم', en: 'Umm Kulthum' }, 9_100_000],
  ['abdel-halim', { ar: 'عبد الحليم حافظ', en: 'Abdel Halim Hafez' }, 6_200_000],
  ['fairuz', { ar: 'فيروز' }, 8_300_000],
  ['amr-diab', { ar: 'عمرو دياب', en: 'Amr Diab' }, 12_500_000],
  ['mohamed-abdel-wahab', { ar: 'محمد عبد الوهاب', en: 'Mohamed Abdel Wahab' }, 2_100_000],
  ['kadim', { ar: 'كاظم الساهر', en: 'Kadim Al Sahir' }, 7_400_000],
  ['nancy', { ar: 'نانسي عجرم', en: 'Nancy Ajram' }, 8_800_000],
  ['elissa', { ar: 'إليسا', en: 'Elissa' }, 7_900_000],
  ['hamaki', { ar: 'محمد حماقي' }, 6_100_000],
  ['tamer', { ar: 'تامر حسني', en: 'Tamer Hosny' }, 10_200_000],
  ['wael', { ar: 'وائل كفوري', en: 'Wael Kfoury' }, 5_300_000],
  ['majida', { ar: 'ماجدة الرومي', en: 'Majida El Roumi' }, 3_600_000],
  ['warda', { ar: 'وردة الجزائرية', en: 'Warda Al Jazairia' }, 3_900_000],
  ['sabah-fakhri', { ar: 'صباح فخري' }, 2_400_000],
  ['mohammed-abdu', { ar: 'محمد عبده', en: 'Mohammed Abdu' }, 4_700_000],
  ['assala', { ar: 'أصالة نصري', en: 'Assala Nasri' }, 6_600_000],
  ['sherine', { ar: 'شيرين عبد الوهاب', en: 'Sherine Abdel Wahab' }, 9_300_000],
  ['haifa', { ar: 'هيفاء وهبي', en: 'Haifa Wehbe' }, 4_200_000],
  ['mounir', { ar: 'محمد منير', en: 'Mohamed Mounir' }, 5_800_000],
  ['cheb-khaled', { ar: 'الشاب خالد', en: 'Cheb Khaled' }, 6_900_000],
  ['rahbani', { ar: 'زياد الرحباني' }, 1_900_000],
  ['cairokee', { ar: 'كايروكي', en: 'Cairokee' }, 2_800_000],
  ['mashrou', { ar: 'مشروع ليلى', en: "Mashrou' Leila" }, 1_700_000],
  ['dalida', { fr: 'Dalida' }, 3_300_000],
  ['adele', { en: 'Adele' }, 45_000_000],
  ['stromae', { fr: 'Stromae' }, 14_000_000],
  ['edith', { fr: 'Édith Piaf' }, 11_000_000],
  ['coldplay', { en: 'Coldplay' }, 70_000_000],
  ['ed-sheeran', { en: 'Ed Sheeran' }, 80_000_000],
  // Distractors: names that share a word or a sound with the wanted ones.
  ['amr-mostafa', { ar: 'عمرو مصطفى', en: 'Amr Mostafa' }, 1_500_000],
  ['mohamed-fouad', { ar: 'محمد فؤاد', en: 'Mohamed Fouad' }, 3_100_000],
  ['fairuz-karawya', { ar: 'فيروز كراوية' }, 300_000],
  ['sherine-reda', { ar: 'شيرين رضا' }, 200_000],
  ['adel-imam', { ar: 'عادل إمام', en: 'Adel Imam' }, 900_000],
  ['kadim-shami', { ar: 'كاظم الشامي' }, 100_000],
  ['nancy-nabil', { ar: 'نانسي نبيل' }, 150_000],
  ['leila-murad', { ar: 'ليلى مراد', en: 'Leila Mourad' }, 1_200_000],
  ['khaled-selim', { ar: 'خالد سليم', en: 'Khaled Selim' }, 800_000],
  ['beatles', { en: 'The Beatles' }, 30_000_000],
  ['ziad-bourji', { ar: 'زياد برجي', en: 'Ziad Bourji' }, 1_000_000],
  ['hakim', { ar: 'حكيم', en: 'Hakim' }, 1_600_000],
];

const SONGS: [string, Texts, string[], number][] = [
  ['enta-omri', { ar: 'إنت عمري', en: 'Enta Omri' }, ['umm-kulthum'], 88],
  ['al-atlal', { ar: 'الأطلال' }, ['umm-kulthum'], 80],
  ['alf-leila', { ar: 'ألف ليلة وليلة' }, ['umm-kulthum'], 78],
  ['hob-kolloh', { ar: 'الحب كله' }, ['umm-kulthum'], 70],
  ['lessa-faker', { ar: 'لسه فاكر' }, ['umm-kulthum'], 65],
  ['sawwah', { ar: 'سواح' }, ['abdel-halim'], 74],
  ['ahwak', { ar: 'أهواك' }, ['abdel-halim'], 72],
  ['qariat', { ar: 'قارئة الفنجان' }, ['abdel-halim'], 76],
  ['kifak-enta', { ar: 'كيفك إنت', en: 'Kifak Enta' }, ['fairuz'], 84],
  ['nassam', { ar: 'نسم علينا الهوى' }, ['fairuz'], 82],
  ['habaytak', { ar: 'حبيتك بالصيف' }, ['fairuz'], 79],
  ['tamally', { ar: 'تملي معاك', en: 'Tamally Maak' }, ['amr-diab'], 92],
  ['nour-el-ein', { ar: 'نور العين', en: 'Nour El Ein' }, ['amr-diab'], 90],
  ['ah-w-noss', { ar: 'آه ونص' }, ['nancy'], 81],
  ['ya-tabtab', { ar: 'يا طبطب' }, ['nancy'], 77],
  ['aa-bali', { ar: 'عبالي حبيبي' }, ['elissa'], 73],
  ['ahla-wahda', { ar: 'أحلى واحدة' }, ['hamaki'], 75],
  ['zidini', { ar: 'زيديني عشقا' }, ['kadim'], 83],
  ['el-helm', { ar: 'الحلم' }, ['mounir'], 60],
  ['helwa', { ar: 'حلوة يا بلدي', fr: 'Helwa ya baladi' }, ['dalida'], 71],
  ['didi', { fr: 'Didi' }, ['cheb-khaled'], 85],
  ['aicha', { fr: 'Aïcha' }, ['cheb-khaled'], 86],
  ['batwanes', { ar: 'بتونس بيك' }, ['warda'], 69],
  ['hello', { en: 'Hello' }, ['adele'], 97],
  ['alors', { fr: 'Alors on danse' }, ['stromae'], 93],
  ['la-vie', { fr: 'La Vie en rose' }, ['edith'], 91],
  ['yellow', { en: 'Yellow' }, ['coldplay'], 94],
  ['shape', { en: 'Shape of You' }, ['ed-sheeran'], 99],
  // Distractors.
  ['omri-ma-nsitak', { ar: 'عمري ما نسيتك' }, ['amr-mostafa'], 95],
  ['ya-leil', { ar: 'يا ليل يا عين' }, ['leila-murad'], 89],
  ['helwa-donya', { ar: 'حلوة الدنيا' }, ['mohamed-fouad'], 96],
  ['nour', { ar: 'نور' }, ['hakim'], 98],
  ['hello-goodbye', { en: 'Hello, Goodbye' }, ['beatles'], 98],
  ['yellow-submarine', { en: 'Yellow Submarine' }, ['beatles'], 99],
  ['la-vie-belle', { fr: 'La vie est belle' }, ['stromae'], 95],
  ['hob-gedid', { ar: 'حب جديد' }, ['ziad-bourji'], 94],
  ['leila', { ar: 'ليلة' }, ['khaled-selim'], 97],
];

export const QUALITY_RECORDS: ImportRecord[] = [
  ...ARTISTS.map(([id, name, listeners]) => artist(id, name, listeners)),
  ...ARTISTS.map(([id, name]) => album(`album-${id}`, { ...(name.ar ? { ar: `أفضل أغاني ${name.ar}` } : {}), en: `Best of ${Object.values(name).at(-1)}` }, [id])),
  ...SONGS.map(([id, title, artists, popularity]) => song(id, title, artists, popularity)),
];

export interface QualityQuery {
  readonly rule: number;
  readonly q: string;
  /** `kind:id` of the item the query means. */
  readonly want: string;
}

export const RULES: Record<number, string> = {
  1: 'Arabic spelling variants',
  2: 'case, accents, punctuation',
  3: 'optional article',
  4: 'prefix (as you type)',
  5: 'one typo',
  6: 'Latin transliterations',
  7: 'Arabizi',
  8: 'across scripts',
};

const q = (rule: number, entries: [string, string][]): QualityQuery[] => entries.map(([text, want]) => ({ rule, q: text, want }));

export const QUALITY_QUERIES: QualityQuery[] = [
  ...q(1, [
    ['ام كلثوم', 'artist:umm-kulthum'], ['انت عمري', 'song:enta-omri'], ['الف ليله وليله', 'song:alf-leila'], ['اهواك', 'song:ahwak'],
    ['كيفك انت', 'song:kifak-enta'], ['اليسا', 'artist:elissa'], ['احلى واحده', 'song:ahla-wahda'], ['اصاله نصري', 'artist:assala'],
    ['هيفاء وهبى', 'artist:haifa'], ['ورده الجزائريه', 'artist:warda'], ['ماجده الرومي', 'artist:majida'], ['زيديني عشقاً', 'song:zidini'],
    ['عَبْد الحَلِيم حافِظ', 'artist:abdel-halim'], ['قارئه الفنجان', 'song:qariat'], ['نسم علينا الهوي', 'song:nassam'],
    ['محمـــد عبده', 'artist:mohammed-abdu'], ['الشّاب خالِد', 'artist:cheb-khaled'], ['اه ونص', 'song:ah-w-noss'], ['إنت عمرى', 'song:enta-omri'],
    ['لسة فاكر', 'song:lessa-faker'],
  ]),
  ...q(2, [
    ['edith piaf', 'artist:edith'], ['LA VIE EN ROSE', 'song:la-vie'], ['aicha', 'song:aicha'], ['alors, on danse!', 'song:alors'],
    ['ed   sheeran', 'artist:ed-sheeran'], ['mashrou leila', 'artist:mashrou'], ['COLDPLAY', 'artist:coldplay'], ['shape of you', 'song:shape'],
    ['stromae.', 'artist:stromae'], ['Cheb-Khaled', 'artist:cheb-khaled'], ['amr diab', 'artist:amr-diab'], ['DALIDA', 'artist:dalida'],
    ['yellow!!!', 'song:yellow'], ['hello.', 'song:hello'], ['kadim al-sahir', 'artist:kadim'], ['Tamer  Hosny', 'artist:tamer'],
    ['wael kfoury', 'artist:wael'], ['nancy AJRAM', 'artist:nancy'], ['ÉDITH', 'artist:edith'], ['Sherine Abdel-Wahab', 'artist:sherine'],
  ]),
  ...q(3, [
    ['اطلال', 'song:al-atlal'], ['حلم', 'song:el-helm'], ['قارئة فنجان', 'song:qariat'], ['وردة جزائرية', 'artist:warda'],
    ['ماجدة رومي', 'artist:majida'], ['زياد رحباني', 'artist:rahbani'], ['شاب خالد', 'artist:cheb-khaled'], ['كاظم ساهر', 'artist:kadim'],
    ['والأطلال', 'song:al-atlal'], ['حبيتك الصيف', 'song:habaytak'], ['نور عين', 'song:nour-el-ein'], ['الف الليلة', 'song:alf-leila'],
    ['نسم علينا هوى', 'song:nassam'], ['والحب كله', 'song:hob-kolloh'], ['محمد عبد وهاب', 'artist:mohamed-abdel-wahab'], ['بالحلم', 'song:el-helm'],
  ]),
  ...q(4, [
    ['عمرو د', 'artist:amr-diab'], ['ام كلث', 'artist:umm-kulthum'], ['فير', 'artist:fairuz'], ['تملي مع', 'song:tamally'],
    ['كيفك ا', 'song:kifak-enta'], ['نانسي عج', 'artist:nancy'], ['edith pi', 'artist:edith'], ['alors on d', 'song:alors'],
    ['coldp', 'artist:coldplay'], ['shape of y', 'song:shape'], ['الاطل', 'song:al-atlal'], ['قارئة الفن', 'song:qariat'],
    ['هيفاء وه', 'artist:haifa'], ['tamer h', 'artist:tamer'], ['زيديني عش', 'song:zidini'], ['محمد من', 'artist:mounir'],
    ['ed sh', 'artist:ed-sheeran'], ['stro', 'artist:stromae'], ['la vie en r', 'song:la-vie'], ['نسم علي', 'song:nassam'],
  ]),
  ...q(5, [
    ['Coldpaly', 'artist:coldplay'], ['Ed Sheeren', 'artist:ed-sheeran'], ['Stromea', 'artist:stromae'], ['قارئة الفنجال', 'song:qariat'],
    ['زيديمي عشقا', 'song:zidini'], ['Edith Piaff', 'artist:edith'], ['Adelle', 'artist:adele'], ['Yelow', 'song:yellow'],
    ['Alors on dance', 'song:alors'], ['Shaep of you', 'song:shape'], ['تاامر حسني', 'artist:tamer'], ['كاظم الساهير', 'artist:kadim'],
    ['Cairokey', 'artist:cairokee'], ['Mashrou Lelia', 'artist:mashrou'], ['Sabah Fakhry', 'artist:sabah-fakhri'], ['ماجدةة الرومي', 'artist:majida'],
    ['Cheb Khalid', 'artist:cheb-khaled'], ['Mounir Mohamad', 'artist:mounir'], ['Kfourry Wael', 'artist:wael'],
  ]),
  ...q(6, [
    ['Amro Diyab', 'artist:amr-diab'], ['Om Kalthoum', 'artist:umm-kulthum'], ['Oum Kalsoum', 'artist:umm-kulthum'], ['Fayrouz', 'artist:fairuz'],
    ['Fairouz', 'artist:fairuz'], ['Abdel Halim Hafiz', 'artist:abdel-halim'], ['Mohammed Abdo', 'artist:mohammed-abdu'],
    ['Muhammad Mounir', 'artist:mounir'], ['Kazem El Saher', 'artist:kadim'], ['Nancy Agram', 'artist:nancy'], ['Asala Nasry', 'artist:assala'],
    ['Shirin Abdel Wahab', 'artist:sherine'], ['Haifa Wahbi', 'artist:haifa'], ['Tamer Hosni', 'artist:tamer'], ['Wael Kfouri', 'artist:wael'],
    ['Magida El Roumi', 'artist:majida'], ['Enta Omry', 'song:enta-omri'], ['Tamaly Maak', 'song:tamally'], ['Kifak Inta', 'song:kifak-enta'],
    ['Mohamed Abd El Wahab', 'artist:mohamed-abdel-wahab'],
  ]),
  ...q(7, [
    ['3amr diab', 'artist:amr-diab'], ['7amaki', 'artist:hamaki'], ['7elwa ya baladi', 'song:helwa'], ['enta 3omri', 'song:enta-omri'],
    ['3abdel 7alim', 'artist:abdel-halim'], ['2ahwak', 'song:ahwak'], ['cheb 5aled', 'artist:cheb-khaled'], ['nancy 3agram', 'artist:nancy'],
    ['7abaytak bel seif', 'song:habaytak'], ['el 7elm', 'song:el-helm'], ['3abali 7abibi', 'song:aa-bali'], ['a7la wa7da', 'song:ahla-wahda'],
    ['2alf leila', 'song:alf-leila'], ['ra7bani', 'artist:rahbani'], ['sabah fa5ri', 'artist:sabah-fakhri'], ['tamally ma3ak', 'song:tamally'],
    ['nour el 3ein', 'song:nour-el-ein'], ['wa2el kfoury', 'artist:wael'], ['9aba7 fa5ri', 'artist:sabah-fakhri'], ['2asala', 'artist:assala'],
  ]),
  ...q(8, [
    ['اديل', 'artist:adele'], ['ستروماي', 'artist:stromae'], ['كولدبلاي', 'artist:coldplay'], ['اديث بياف', 'artist:edith'],
    ['هيلو اديل', 'song:hello'], ['اد شيران', 'artist:ed-sheeran'], ['داليدا', 'artist:dalida'], ['يلو كولدبلاي', 'song:yellow'],
    ['شيب اوف يو', 'song:shape'], ['Habaytak bel seif', 'song:habaytak'], ['Nassam Alayna El Hawa', 'song:nassam'], ['El Helm', 'song:el-helm'],
    ['Lessa Faker', 'song:lessa-faker'], ['Ahwak', 'song:ahwak'], ['El Hob Kollo', 'song:hob-kolloh'], ['Zidini', 'song:zidini'],
    ['Ya Tabtab', 'song:ya-tabtab'], ['Hamaki', 'artist:hamaki'], ['Ziad Rahbani', 'artist:rahbani'], ['Sabah Fakhri', 'artist:sabah-fakhri'],
    ['عيشة', 'song:aicha'],
  ]),
];
