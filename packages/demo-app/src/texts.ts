// Every word the demo shows, in Arabic and English. Catalog texts (names,
// titles, bios) come localized from the API instead.
import type { AlbumType, AudioQuality } from '@maqam/sdk';
import { iso } from './bidi.ts';
import { DEVELOPER_TEXT, type DeveloperTexts } from './developer-texts.ts';
import { PLAYER_TEXT, type PlayerTexts } from './player-texts.ts';
import { VIDEO_TEXT, type VideoTexts } from './video-texts.ts';

export { iso };

export type Lang = 'ar' | 'en';

const arabicPlural = new Intl.PluralRules('ar');


/** The music's words here; the video's in video-texts.ts, watching's in player-texts.ts, the Developer page's in developer-texts.ts. */
export interface Texts extends VideoTexts, PlayerTexts, DeveloperTexts {
  title: string;
  signIn: string;
  signOut: string;
  /** The account's name, as the header shows it. */
  signedInAs: (name: string) => string;
  otherLang: string;
  welcome: string;
  intro: string;
  home: string;
  playableNow: string;
  noDemoMedia: string;
  featuredArtists: string;
  newReleases: string;
  artist: string;
  verified: string;
  listeners: (n: string) => string;
  followers: (n: string) => string;
  popular: string;
  discography: string;
  albumType: string;
  all: string;
  albumTypes: Record<AlbumType, string>;
  albumTypesPlural: Record<AlbumType, string>;
  noAlbums: string;
  related: string;
  noRelated: string;
  more: string;
  noMore: string;
  tracks: string;
  disc: (n: string) => string;
  /** `count` songs, `n` the count as the page writes its digits: each language's plural form. */
  songCount: (count: number, n: string) => string;
  explicit: string;
  hasLyrics: string;
  openAlbum: (title: string) => string;
  play: string;
  pause: string;
  resume: string;
  seek: string;
  lyrics: string;
  lyricsOf: (title: string) => string;
  tapToSeek: string;
  close: string;
  quality: string;
  qualities: Record<AudioQuality, string>;
  noMedia: string;
  cannotPlay: string;
  signedOut: string;
  loading: string;
  error: (message: string) => string;
  search: string;
  searchPlaceholder: string;
  resultsFor: (q: string) => string;
  noResults: string;
  artists: string;
  albums: string;
  library: string;
  likedSongs: string;
  savedAlbums: string;
  following: string;
  like: (title: string) => string;
  unlike: (title: string) => string;
  follow: string;
  followingNow: string;
  recentlyPlayed: string;
  recentEmpty: string;
  likedEmpty: string;
  albumsEmpty: string;
  followingEmpty: string;
  /** The library's button that saves the user's own data (GET /v1/users/me/export) as a file, and what it says while it works and once done. */
  downloadMyData: string;
  preparingMyData: string;
  myDataSaved: string;
  couldNotSave: (title: string) => string;
  needsWrite: string;
  savedOn: (date: string) => string;
  playlists: string;
  newPlaylist: string;
  newPlaylistName: (n: string) => string;
  playlistName: string;
  create: string;
  playlistsEmpty: string;
  playlist: string;
  addTo: (title: string) => string;
  addedTo: (title: string, name: string) => string;
  byOwner: (name: string) => string;
  visibility: { PLAYLIST_VISIBILITY_PUBLIC: string; PLAYLIST_VISIBILITY_PRIVATE: string };
  publicSwitch: string;
  publicHint: string;
  shareLink: string;
  copyLink: string;
  linkCopied: string;
  playAll: string;
  removeEntry: (title: string) => string;
  moveUp: (title: string) => string;
  moveDown: (title: string) => string;
  moved: (title: string, n: string) => string;
  reorderHint: string;
  deletePlaylist: string;
  confirmDelete: (name: string) => string;
  deleted: (name: string) => string;
  unavailable: string;
  playlistEmpty: string;
  playlistEmptyOther: string;
  readOnly: (owner: string) => string;
  couldNotChange: string;
  noPlayable: string;
  next: string;
  previous: string;
  shuffle: string;
  queue: string;
  upNext: string;
  queueEnd: string;
  playFrom: (n: string) => string;
  shuffleOn: string;
  shuffleOff: string;
  shortcuts: string;
  /** The keyboard shortcuts, as one line of help. */
  shortcutsHelp: string;
}

export const TEXT: Record<Lang, Texts> = {
  ar: {
    ...VIDEO_TEXT.ar,
    ...PLAYER_TEXT.ar,
    ...DEVELOPER_TEXT.ar,
    title: 'مقام · موسيقى عربية',
    signIn: 'تسجيل الدخول',
    signOut: 'تسجيل الخروج',
    signedInAs: (name) => `حسابك: ${iso(name)}`,
    otherLang: 'English',
    welcome: 'أهلًا بك في مقام',
    intro: 'تطبيق موسيقى تجريبي مبني على واجهة مقام البرمجية وحزمة SDK. سجّل الدخول (المستخدم demo وكلمة المرور maqam-demo) لتتصفح الفنانين والألبومات وتستمع وتتابع الكلمات مع الموسيقى.',
    home: 'الرئيسية',
    playableNow: 'جاهزة للاستماع',
    noDemoMedia: 'لا توجد ملفات صوتية في هذا العرض (ثبّت ffmpeg ثم أعد تشغيل الخادم).',
    featuredArtists: 'فنانون مميزون',
    newReleases: 'أحدث الإصدارات',
    artist: 'فنان',
    verified: 'فنان موثّق',
    listeners: (n) => `${n} مستمع شهريًا`,
    followers: (n) => `${n} متابع`,
    popular: 'الأكثر استماعًا',
    discography: 'الأعمال',
    albumType: 'نوع الإصدار',
    all: 'الكل',
    albumTypes: { ALBUM_TYPE_ALBUM: 'ألبوم', ALBUM_TYPE_SINGLE: 'أغنية منفردة', ALBUM_TYPE_EP: 'ألبوم قصير', ALBUM_TYPE_COMPILATION: 'مجموعة' },
    albumTypesPlural: { ALBUM_TYPE_ALBUM: 'ألبومات', ALBUM_TYPE_SINGLE: 'أغانٍ منفردة', ALBUM_TYPE_EP: 'ألبومات قصيرة', ALBUM_TYPE_COMPILATION: 'مجموعات' },
    noAlbums: 'لا توجد إصدارات من هذا النوع.',
    related: 'فنانون مشابهون',
    noRelated: 'لا يوجد فنانون مشابهون بعد.',
    more: 'المزيد',
    noMore: 'لا مزيد.',
    tracks: 'الأغاني',
    disc: (n) => `القرص ${n}`,
    // Arabic counts in six forms: أغنية واحدة، أغنيتان، ٣ أغانٍ، ١١ أغنية، ١٠٠ أغنية.
    songCount: (count, n) => ({ zero: `${n} أغنية`, one: 'أغنية واحدة', two: 'أغنيتان', few: `${n} أغانٍ`, many: `${n} أغنية`, other: `${n} أغنية` })[arabicPlural.select(count)]!,
    explicit: 'محتوى صريح',
    hasLyrics: 'لها كلمات',
    openAlbum: (title) => `ألبوم ${iso(title)}`,
    play: 'استمع',
    pause: 'إيقاف مؤقت',
    resume: 'تشغيل',
    seek: 'موضع التشغيل',
    lyrics: 'الكلمات',
    lyricsOf: (title) => `كلمات «${iso(title)}»`,
    tapToSeek: 'اضغط على سطر للانتقال إليه.',
    close: 'إغلاق',
    quality: 'الجودة',
    qualities: { AUDIO_QUALITY_LOW: 'منخفضة', AUDIO_QUALITY_STANDARD: 'عادية', AUDIO_QUALITY_HIGH: 'عالية', AUDIO_QUALITY_LOSSLESS: 'بلا فقد (FLAC)' },
    noMedia: 'لا توجد ملفات صوتية لهذه الأغنية في العرض التجريبي.',
    cannotPlay: 'هذا المتصفح لا يستطيع تشغيل HLS.',
    signedOut: 'انتهت الجلسة. سجّل الدخول من جديد.',
    loading: 'جارٍ التحميل…',
    error: (message) => `خطأ: ${iso(message)}`,
    search: 'بحث',
    searchPlaceholder: 'ابحث عن فنان أو أغنية أو مسلسل أو فيلم',
    resultsFor: (q) => `نتائج «${iso(q)}»`,
    noResults: 'لا نتائج. جرّب كتابة أخرى للاسم.',
    artists: 'فنانون',
    albums: 'ألبومات',
    library: 'مكتبتك',
    likedSongs: 'أغانٍ أعجبتك',
    savedAlbums: 'ألبوماتك',
    following: 'تتابعهم',
    like: (title) => `أضف «${iso(title)}» إلى ما أعجبك`,
    unlike: (title) => `أزل «${iso(title)}» مما أعجبك`,
    follow: 'متابعة',
    followingNow: 'تتابعه',
    recentlyPlayed: 'استمعت إليها مؤخرًا',
    recentEmpty: 'ما تستمع إليه نصف دقيقة أو أكثر يظهر هنا.',
    likedEmpty: 'لم تُعجبك أغنية بعد. اضغط على القلب بجانب أي أغنية.',
    albumsEmpty: 'لم تحفظ ألبومًا بعد. اضغط على القلب في صفحة أي ألبوم.',
    followingEmpty: 'لا تتابع أحدًا بعد. اضغط «متابعة» في صفحة أي فنان.',
    downloadMyData: 'نزّل بياناتي',
    preparingMyData: 'يُجهَّز…',
    myDataSaved: 'نُزّلت بياناتك في ملف JSON.',
    couldNotSave: (title) => `تعذّر حفظ التغيير على «${iso(title)}»؛ أعدناه كما كان. حاول مرة أخرى.`,
    needsWrite: 'لتحفظ في مكتبتك، سجّل الخروج ثم الدخول من جديد واسمح لمقام بتعديل مكتبتك.',
    savedOn: (date) => `حُفظ في ${date}`,
    playlists: 'قوائم التشغيل',
    newPlaylist: 'قائمة جديدة',
    newPlaylistName: (n) => `قائمتي ${n}`,
    playlistName: 'اسم القائمة',
    create: 'إنشاء',
    playlistsEmpty: 'لا قوائم تشغيل بعد. أنشئ واحدة، ثم أضف إليها الأغاني بزر + بجانب أي أغنية.',
    playlist: 'قائمة تشغيل',
    addTo: (title) => `أضف «${iso(title)}» إلى قائمة تشغيل`,
    addedTo: (title, name) => `أُضيفت «${iso(title)}» إلى «${iso(name)}».`,
    byOwner: (name) => `من ${iso(name)}`,
    visibility: { PLAYLIST_VISIBILITY_PUBLIC: 'عامة', PLAYLIST_VISIBILITY_PRIVATE: 'خاصة' },
    publicSwitch: 'عامة',
    publicHint: 'يستطيع كل من معه الرابط أن يستمع إليها، ولا يغيّرها غيرك.',
    shareLink: 'رابط القائمة',
    copyLink: 'انسخ الرابط',
    linkCopied: 'نُسخ الرابط.',
    playAll: 'شغّل الكل',
    removeEntry: (title) => `أزل «${iso(title)}» من هذه القائمة`,
    moveUp: (title) => `انقل «${iso(title)}» إلى أعلى`,
    moveDown: (title) => `انقل «${iso(title)}» إلى أسفل`,
    moved: (title, n) => `«${iso(title)}» الآن في المرتبة ${n}.`,
    reorderHint: 'اسحب الأغاني لترتيبها، أو استخدم السهمين.',
    deletePlaylist: 'احذف القائمة',
    confirmDelete: (name) => `أتحذف «${iso(name)}»؟ لا يمكن التراجع عن ذلك.`,
    deleted: (name) => `حُذفت «${iso(name)}».`,
    unavailable: 'لم تعد متاحة',
    playlistEmpty: 'هذه القائمة فارغة. أضف إليها الأغاني بزر + بجانب أي أغنية.',
    playlistEmptyOther: 'هذه القائمة فارغة حتى الآن.',
    readOnly: (owner) => `قائمة من ${iso(owner)}؛ لا يغيّرها غيره.`,
    couldNotChange: 'تعذّر تغيير القائمة؛ نعرضها الآن كما هي.',
    noPlayable: 'لا توجد بين هذه الأغاني أغنية لها ملف صوتي في العرض التجريبي.',
    next: 'التالية',
    previous: 'السابقة',
    shuffle: 'ترتيب عشوائي',
    queue: 'قائمة الانتظار',
    upNext: 'التالي',
    queueEnd: 'لا شيء بعد هذه الأغنية.',
    playFrom: (n) => `شغّل من الأغنية ${n}`,
    shuffleOn: 'الترتيب العشوائي مفعّل.',
    shuffleOff: 'الترتيب العشوائي متوقف.',
    shortcuts: 'اختصارات لوحة المفاتيح',
    shortcutsHelp: 'المسافة: تشغيل أو إيقاف · N: التالية · P: السابقة · S: ترتيب عشوائي · L: الكلمات · Q: قائمة الانتظار · ← →: تقديم أو إرجاع ٥ ثوانٍ · /: البحث',
  },
  en: {
    ...VIDEO_TEXT.en,
    ...PLAYER_TEXT.en,
    ...DEVELOPER_TEXT.en,
    title: 'Maqam · Arabic music',
    signIn: 'Sign in',
    signOut: 'Sign out',
    signedInAs: (name) => `Signed in as ${iso(name)}`,
    otherLang: 'العربية',
    welcome: 'Welcome to Maqam',
    intro: 'A demo music app built on the Maqam API and its SDK. Sign in (user demo, password maqam-demo) to browse artists and albums, listen, and follow the lyrics as the music plays.',
    home: 'Home',
    playableNow: 'Ready to play',
    noDemoMedia: 'This demo has no audio (install ffmpeg, then restart the server).',
    featuredArtists: 'Featured artists',
    newReleases: 'New releases',
    artist: 'Artist',
    verified: 'Verified artist',
    listeners: (n) => `${n} monthly listeners`,
    followers: (n) => `${n} followers`,
    popular: 'Popular',
    discography: 'Discography',
    albumType: 'Release type',
    all: 'All',
    albumTypes: { ALBUM_TYPE_ALBUM: 'Album', ALBUM_TYPE_SINGLE: 'Single', ALBUM_TYPE_EP: 'EP', ALBUM_TYPE_COMPILATION: 'Compilation' },
    albumTypesPlural: { ALBUM_TYPE_ALBUM: 'Albums', ALBUM_TYPE_SINGLE: 'Singles', ALBUM_TYPE_EP: 'EPs', ALBUM_TYPE_COMPILATION: 'Compilations' },
    noAlbums: 'No releases of this type.',
    related: 'Fans also like',
    noRelated: 'No related artists yet.',
    more: 'More',
    noMore: 'No more.',
    tracks: 'Songs',
    disc: (n) => `Disc ${n}`,
    songCount: (count, n) => (count === 1 ? '1 song' : `${n} songs`),
    explicit: 'Explicit',
    hasLyrics: 'Has lyrics',
    openAlbum: (title) => `Album of ${iso(title)}`,
    play: 'Play',
    pause: 'Pause',
    resume: 'Play',
    seek: 'Playback position',
    lyrics: 'Lyrics',
    lyricsOf: (title) => `Lyrics of “${iso(title)}”`,
    tapToSeek: 'Tap a line to jump to it.',
    close: 'Close',
    quality: 'Quality',
    qualities: { AUDIO_QUALITY_LOW: 'Low', AUDIO_QUALITY_STANDARD: 'Standard', AUDIO_QUALITY_HIGH: 'High', AUDIO_QUALITY_LOSSLESS: 'Lossless (FLAC)' },
    noMedia: 'This song has no audio in the demo.',
    cannotPlay: 'This browser cannot play HLS.',
    signedOut: 'Your session ended. Sign in again.',
    loading: 'Loading…',
    error: (message) => `Error: ${iso(message)}`,
    search: 'Search',
    searchPlaceholder: 'Search artists, songs, shows, films',
    resultsFor: (q) => `Results for “${iso(q)}”`,
    noResults: 'No results. Try another spelling.',
    artists: 'Artists',
    albums: 'Albums',
    library: 'Your library',
    likedSongs: 'Liked songs',
    savedAlbums: 'Albums',
    following: 'Following',
    like: (title) => `Like “${iso(title)}”`,
    unlike: (title) => `Remove “${iso(title)}” from your likes`,
    follow: 'Follow',
    followingNow: 'Following',
    recentlyPlayed: 'Recently played',
    recentEmpty: 'Songs you play for half a minute or more show up here.',
    likedEmpty: 'No liked songs yet. Tap the heart next to any song.',
    albumsEmpty: 'No saved albums yet. Tap the heart on any album page.',
    followingEmpty: 'You follow no one yet. Tap Follow on any artist page.',
    downloadMyData: 'Download my data',
    preparingMyData: 'Preparing…',
    myDataSaved: 'Your data is downloaded as a JSON file.',
    couldNotSave: (title) => `Could not save your change to “${iso(title)}”; it is back as it was. Try again.`,
    needsWrite: 'To save to your library, sign out, sign in again and allow Maqam to change your library.',
    savedOn: (date) => `Saved ${date}`,
    playlists: 'Playlists',
    newPlaylist: 'New playlist',
    newPlaylistName: (n) => `My playlist ${n}`,
    playlistName: 'Playlist name',
    create: 'Create',
    playlistsEmpty: 'No playlists yet. Make one, then add songs to it with + next to any song.',
    playlist: 'Playlist',
    addTo: (title) => `Add “${iso(title)}” to a playlist`,
    addedTo: (title, name) => `Added “${iso(title)}” to “${iso(name)}”.`,
    byOwner: (name) => `By ${iso(name)}`,
    visibility: { PLAYLIST_VISIBILITY_PUBLIC: 'Public', PLAYLIST_VISIBILITY_PRIVATE: 'Private' },
    publicSwitch: 'Public',
    publicHint: 'Anyone with the link can listen to it; only you can change it.',
    shareLink: 'Link to the playlist',
    copyLink: 'Copy link',
    linkCopied: 'Link copied.',
    playAll: 'Play all',
    removeEntry: (title) => `Remove “${iso(title)}” from this playlist`,
    moveUp: (title) => `Move “${iso(title)}” up`,
    moveDown: (title) => `Move “${iso(title)}” down`,
    moved: (title, n) => `“${iso(title)}” is now number ${n}.`,
    reorderHint: 'Drag songs to reorder them, or use the arrows.',
    deletePlaylist: 'Delete playlist',
    confirmDelete: (name) => `Delete “${iso(name)}”? This cannot be undone.`,
    deleted: (name) => `Deleted “${iso(name)}”.`,
    unavailable: 'No longer available',
    playlistEmpty: 'This playlist is empty. Add songs to it with + next to any song.',
    playlistEmptyOther: 'This playlist is empty for now.',
    readOnly: (owner) => `A playlist by ${iso(owner)}; only they can change it.`,
    couldNotChange: 'Could not change the playlist; it is shown as it is now.',
    noPlayable: 'None of these songs has audio in the demo.',
    next: 'Next',
    previous: 'Previous',
    shuffle: 'Shuffle',
    queue: 'Queue',
    upNext: 'Up next',
    queueEnd: 'Nothing after this song.',
    playFrom: (n) => `Play from song ${n}`,
    shuffleOn: 'Shuffle is on.',
    shuffleOff: 'Shuffle is off.',
    shortcuts: 'Keyboard shortcuts',
    shortcutsHelp: 'Space: play or pause · N: next · P: previous · S: shuffle · L: lyrics · Q: queue · ← →: back or ahead 5 s · /: search',
  },
};
