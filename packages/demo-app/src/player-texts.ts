// The words of watching: the video player, its menus and shortcuts, the next
// episode, and Continue watching; in Arabic and English. texts.ts adds them
// to the rest. The audio and subtitle menus name each language in itself
// (the stream's own names, "العربية", "English"), not in these words.
import { iso } from './bidi.ts';

export interface PlayerTexts {
  /** A title's Play button, and its label with the title named. */
  watchMovie: string;
  watchEpisode: string;
  playTitle: (title: string) => string;
  /** Play where the viewer left off: a film, an episode (`code`: "S1 · E3"). */
  resumeFrom: (time: string) => string;
  resumeEpisode: (code: string, time: string) => string;
  /** An episode as "S1 · E3", its season and number written as the page writes digits. */
  episodeCode: (season: string, episode: string) => string;
  /** The same in words, for a screen reader and a title attribute. */
  episodeCodeLong: (season: string, episode: string) => string;
  continueWatching: string;
  /** How much of a title is left, in whole minutes (at least one). */
  minutesLeft: (count: number, n: string) => string;
  hideFromRow: (title: string) => string;
  hidden: (title: string) => string;
  /** The player. */
  player: string;
  playVideo: string;
  pauseVideo: string;
  back10: string;
  ahead10: string;
  mute: string;
  unmute: string;
  volume: string;
  fullscreen: string;
  exitFullscreen: string;
  /** The quality menu's first item, and what it shows while it chooses (`current`: "720p"). */
  autoQuality: string;
  autoQualityNow: (current: string) => string;
  audioLanguage: string;
  subtitlesMenu: string;
  subtitlesOff: string;
  keyboardShortcuts: string;
  /** The player's shortcuts: [keys, what they do]; `forward` and `backward` are the arrows that seek ahead and back on this page. */
  videoShortcuts: (forward: string, backward: string) => [string[], string][];
  startOver: string;
  resumedAt: (time: string) => string;
  nextEpisode: string;
  /** The countdown to the next episode, in whole seconds. */
  nextIn: (count: number, n: string) => string;
  playNow: string;
  cancel: string;
  watchAgain: string;
  backToShow: string;
  backToMovie: string;
  noVideo: string;
  videoFailed: string;
  /** The stream's URLs expired (a very long pause): a new stream is asked for, and playback goes on where it was. */
  renewing: string;
  loadingVideo: string;
}

const arabicPlural = new Intl.PluralRules('ar');

export const PLAYER_TEXT: Record<'ar' | 'en', PlayerTexts> = {
  ar: {
    watchMovie: 'شاهد الفيلم',
    watchEpisode: 'شاهد الحلقة',
    playTitle: (title) => `شاهد ${iso(title)}`,
    resumeFrom: (time) => `تابع من ${time}`,
    resumeEpisode: (code, time) => `تابع ${code} من ${time}`,
    // A dot between Arabic-Indic digits reads as a zero (٠): Arabic streaming apps write م١:ح٣.
    episodeCode: (season, episode) => `م${season}:ح${episode}`,
    episodeCodeLong: (season, episode) => `الموسم ${season}، الحلقة ${episode}`,
    continueWatching: 'تابع المشاهدة',
    minutesLeft: (count, n) =>
      ({ zero: `متبقٍ ${n} دقيقة`, one: 'متبقية دقيقة واحدة', two: 'متبقيتان دقيقتان', few: `متبقٍ ${n} دقائق`, many: `متبقٍ ${n} دقيقة`, other: `متبقٍ ${n} دقيقة` })[arabicPlural.select(count)]!,
    hideFromRow: (title) => `إخفاء ${iso(title)} من «تابع المشاهدة»`,
    hidden: (title) => `أُخفي ${iso(title)} من «تابع المشاهدة»، ويعود إليها متى شاهدته من جديد.`,
    player: 'مشغّل الفيديو',
    playVideo: 'تشغيل',
    pauseVideo: 'إيقاف مؤقت',
    back10: 'إرجاع ١٠ ثوانٍ',
    ahead10: 'تقديم ١٠ ثوانٍ',
    mute: 'كتم الصوت',
    unmute: 'إعادة الصوت',
    volume: 'مستوى الصوت',
    fullscreen: 'ملء الشاشة',
    exitFullscreen: 'الخروج من ملء الشاشة',
    autoQuality: 'تلقائية',
    autoQualityNow: (current) => `تلقائية (${current})`,
    audioLanguage: 'لغة الصوت',
    subtitlesMenu: 'الترجمة',
    subtitlesOff: 'بلا ترجمة',
    keyboardShortcuts: 'اختصارات لوحة المفاتيح',
    videoShortcuts: (forward, backward) => [
      [['المسافة', 'K'], 'تشغيل أو إيقاف مؤقت'],
      [[forward], 'تقديم ١٠ ثوانٍ'],
      [[backward], 'إرجاع ١٠ ثوانٍ'],
      [['F'], 'ملء الشاشة'],
      [['M'], 'كتم الصوت أو إعادته'],
      [['C'], 'إظهار الترجمة أو إخفاؤها'],
      [['?'], 'هذه القائمة'],
    ],
    startOver: 'من البداية',
    resumedAt: (time) => `نتابع من ${time}`,
    nextEpisode: 'الحلقة التالية',
    nextIn: (count, n) =>
      ({ zero: `تبدأ الآن`, one: 'تبدأ بعد ثانية', two: 'تبدأ بعد ثانيتين', few: `تبدأ بعد ${n} ثوانٍ`, many: `تبدأ بعد ${n} ثانية`, other: `تبدأ بعد ${n} ثانية` })[arabicPlural.select(count)]!,
    playNow: 'شغّلها الآن',
    cancel: 'إلغاء',
    watchAgain: 'شاهد من جديد',
    backToShow: 'صفحة المسلسل',
    backToMovie: 'صفحة الفيلم',
    noVideo: 'لا فيديو لهذا العمل في هذا العرض بعد.',
    videoFailed: 'تعذّر تشغيل الفيديو.',
    renewing: 'نجدّد رابط البث ونتابع من حيث توقفت…',
    loadingVideo: 'جارٍ تحميل الفيديو…',
  },
  en: {
    watchMovie: 'Play film',
    watchEpisode: 'Play episode',
    playTitle: (title) => `Play ${iso(title)}`,
    resumeFrom: (time) => `Resume from ${time}`,
    resumeEpisode: (code, time) => `Resume ${code} from ${time}`,
    episodeCode: (season, episode) => `S${season} · E${episode}`,
    episodeCodeLong: (season, episode) => `Season ${season}, episode ${episode}`,
    continueWatching: 'Continue watching',
    minutesLeft: (count, n) => (count === 1 ? '1 min left' : `${n} min left`),
    hideFromRow: (title) => `Remove ${iso(title)} from Continue watching`,
    hidden: (title) => `Removed ${iso(title)} from Continue watching. It comes back when you watch it again.`,
    player: 'Video player',
    playVideo: 'Play',
    pauseVideo: 'Pause',
    back10: 'Back 10 seconds',
    ahead10: 'Forward 10 seconds',
    mute: 'Mute',
    unmute: 'Unmute',
    volume: 'Volume',
    fullscreen: 'Full screen',
    exitFullscreen: 'Exit full screen',
    autoQuality: 'Auto',
    autoQualityNow: (current) => `Auto (${current})`,
    audioLanguage: 'Audio',
    subtitlesMenu: 'Subtitles',
    subtitlesOff: 'Off',
    keyboardShortcuts: 'Keyboard shortcuts',
    videoShortcuts: (forward, backward) => [
      [['Space', 'K'], 'Play or pause'],
      [[forward], 'Forward 10 seconds'],
      [[backward], 'Back 10 seconds'],
      [['F'], 'Full screen'],
      [['M'], 'Mute or unmute'],
      [['C'], 'Subtitles on or off'],
      [['?'], 'This list'],
    ],
    startOver: 'Start over',
    resumedAt: (time) => `Resuming at ${time}`,
    nextEpisode: 'Next episode',
    nextIn: (count, n) => (count === 1 ? 'Starts in 1 second' : `Starts in ${n} seconds`),
    playNow: 'Play now',
    cancel: 'Cancel',
    watchAgain: 'Watch again',
    backToShow: 'Series page',
    backToMovie: 'Film page',
    noVideo: 'This title has no video in this demo yet.',
    videoFailed: 'The video could not play.',
    renewing: 'Renewing the stream, going on from where you were…',
    loadingVideo: 'Loading the video…',
  },
};
