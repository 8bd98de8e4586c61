// The Maqam demo: what an app developer's browser app looks like with the
// SDK. Sign in with PKCE against the demo client, browse the demo catalog in
// Arabic (right to left) or English, follow related artists page by page,
// and play a stream where the song has media.
import { localStorageTokens, MaqamClient, MaqamError, NotFoundError, SignInRequiredError, type Artist, type AudioQuality, type Song, type TokenInfoResponse } from '@maqam/sdk';

type Lang = 'ar' | 'en';

interface DemoSettings {
  issuer: string;
  clientId: string;
  songCount: number;
  mediaSongs: string[];
}

const TEXT = {
  ar: {
    signIn: 'تسجيل الدخول',
    signOut: 'تسجيل الخروج',
    signedInAs: (scope: string) => `مسجَّل الدخول (${scope})`,
    otherLang: 'English',
    intro: 'هذا عرض لواجهة مقام البرمجية عبر حزمة SDK في المتصفح. سجّل الدخول (المستخدم demo وكلمة المرور maqam-demo) لتصفّح الأغاني والفنانين المرتبطين والاستماع.',
    songs: 'الأغاني',
    page: (n: number) => `الصفحة ${n}`,
    previous: 'السابق',
    next: 'التالي',
    by: 'أداء',
    play: 'استمع',
    hasMedia: 'قابلة للاستماع',
    related: (name: string) => `فنانون مرتبطون بـ${name}`,
    pickArtist: 'اختر فنانًا من قائمة الأغاني لرؤية الفنانين المرتبطين به.',
    more: 'المزيد',
    noMore: 'لا مزيد.',
    player: 'المشغّل',
    quality: 'الجودة',
    scopes: { read: 'قراءة', stream: 'استماع' } as Record<string, string>,
    qualities: { AUDIO_QUALITY_LOW: 'منخفضة', AUDIO_QUALITY_STANDARD: 'عادية', AUDIO_QUALITY_HIGH: 'عالية', AUDIO_QUALITY_LOSSLESS: 'بلا فقد (FLAC)' },
    nowPlaying: (title: string) => `يُشغَّل الآن: ${title}`,
    noMedia: 'لا توجد ملفات صوتية لهذه الأغنية في العرض التجريبي.',
    cannotPlay: 'هذا المتصفح لا يستطيع تشغيل HLS.',
    signedOut: 'انتهت الجلسة. سجّل الدخول من جديد.',
    loading: 'جارٍ التحميل…',
    error: (message: string) => `خطأ: ${message}`,
  },
  en: {
    signIn: 'Sign in',
    signOut: 'Sign out',
    signedInAs: (scope: string) => `Signed in (${scope})`,
    otherLang: 'العربية',
    intro: 'A demo of the Maqam API through its SDK in the browser. Sign in (user demo, password maqam-demo) to browse songs and related artists and to listen.',
    songs: 'Songs',
    page: (n: number) => `Page ${n}`,
    previous: 'Previous',
    next: 'Next',
    by: 'by',
    play: 'Play',
    hasMedia: 'playable',
    related: (name: string) => `Artists related to ${name}`,
    pickArtist: 'Pick an artist in the song list to see related artists.',
    more: 'More',
    noMore: 'No more.',
    player: 'Player',
    quality: 'Quality',
    scopes: { read: 'read', stream: 'stream' } as Record<string, string>,
    qualities: { AUDIO_QUALITY_LOW: 'Low', AUDIO_QUALITY_STANDARD: 'Standard', AUDIO_QUALITY_HIGH: 'High', AUDIO_QUALITY_LOSSLESS: 'Lossless (FLAC)' },
    nowPlaying: (title: string) => `Now playing: ${title}`,
    noMedia: 'This song has no audio in the demo.',
    cannotPlay: 'This browser cannot play HLS.',
    signedOut: 'Your session ended. Sign in again.',
    loading: 'Loading…',
    error: (message: string) => `Error: ${message}`,
  },
} as const;

const SONGS_PER_PAGE = 10;
const RELATED_PAGE_SIZE = 5;

const settings = (await (await fetch('/demo/config.json')).json()) as DemoSettings;
// The sign-in returns to the issuer's origin; start there so the stored PKCE verifier is found on return.
if (new URL(settings.issuer).origin !== location.origin) location.replace(`${settings.issuer}/demo`);

const state = {
  lang: (localStorage.getItem('maqam-demo:lang') === 'en' ? 'en' : 'ar') as Lang,
  user: null as TokenInfoResponse | null,
  songPage: 0,
  songs: [] as Song[],
  artist: null as { id: string; name: string } | null,
  related: [] as Artist[],
  relatedToken: '' as string | null, // '' = not loaded, null = no more pages
  nowPlaying: '',
  quality: 'AUDIO_QUALITY_STANDARD' as AudioQuality,
};

const maqam = new MaqamClient({
  baseUrl: location.origin,
  auth: {
    clientId: settings.clientId,
    redirectUri: `${settings.issuer}/demo/callback`,
    issuer: settings.issuer,
    storage: localStorageTokens(),
    // Another tab signed out, or a refresh was refused: show the signed-out page.
    onTokens: (tokens) => {
      if (!tokens && state.user) {
        state.user = null;
        render();
      }
    },
    onSignedOut: () => say(TEXT[state.lang].signedOut),
  },
});
// For the console: try `await maqam.songs.batchGet(['song-1'])`.
Object.assign(globalThis, { maqam });

const $ = (id: string) => document.getElementById(id)!;

/** A DOM element; text goes in as text, never as HTML. */
function h<K extends keyof HTMLElementTagNameMap>(tag: K, props: Partial<Record<string, string | ((event: Event) => void)>> = {}, ...children: (Node | string | null | false)[]) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(props)) {
    if (typeof value === 'function') element.addEventListener(name.slice(2).toLowerCase(), value);
    else if (value !== undefined) element.setAttribute(name, value);
  }
  for (const child of children) if (child !== null && child !== false) element.append(child);
  return element;
}

function say(message: string) {
  $('status').textContent = message;
}

/** Runs a user action; errors become a readable status line, a lost session the sign-in page. */
async function act(work: () => Promise<void>) {
  say('');
  try {
    await work();
  } catch (error) {
    if (error instanceof SignInRequiredError) {
      state.user = null;
      say(TEXT[state.lang].signedOut);
    } else {
      say(TEXT[state.lang].error(error instanceof MaqamError ? `${error.message} (${error.code})` : String(error)));
    }
  }
  render();
}

const duration = (ms = 0) => `${Math.floor(ms / 60000)}:${String(Math.floor(ms / 1000) % 60).padStart(2, '0')}`;

async function loadSongs() {
  const first = state.songPage * SONGS_PER_PAGE + 1;
  const ids = Array.from({ length: SONGS_PER_PAGE }, (_, i) => `song-${first + i}`).filter((_, i) => first + i <= settings.songCount);
  const results = await maqam.songs.batchGet(ids, { locale: state.lang });
  state.songs = [...results.values()].flatMap((result) => (result.song ? [result.song] : []));
}

async function loadRelated(reset: boolean) {
  if (!state.artist) return;
  const page = await maqam.artists.listRelated(state.artist.id, {
    pageSize: RELATED_PAGE_SIZE,
    locale: state.lang,
    ...(reset || !state.relatedToken ? {} : { pageToken: state.relatedToken }),
  });
  state.related = reset ? page.artists : [...state.related, ...page.artists];
  state.relatedToken = page.nextPageToken || null;
}

/** The hls.js instance of the stream playing, where HLS is not native. */
let player: { destroy(): void } | undefined;

async function play(song: Song) {
  const t = TEXT[state.lang];
  const audio = document.querySelector('audio')!;
  try {
    const { stream } = await maqam.streaming.acquireMusic(song.id!.value, { maxQuality: state.quality });
    state.nowPlaying = song.title?.value ?? song.id!.value;
    player?.destroy();
    player = undefined;
    if (audio.canPlayType('application/vnd.apple.mpegurl')) {
      audio.src = stream.manifestUrl;
    } else {
      // Browsers without native HLS get hls.js, loaded only now.
      const { default: Hls } = await import('hls.js');
      if (!Hls.isSupported()) throw new Error(t.cannotPlay);
      const hls = new Hls();
      hls.loadSource(stream.manifestUrl);
      hls.attachMedia(audio);
      player = hls;
    }
    await audio.play().catch(() => undefined); // autoplay may be refused; the controls are there
  } catch (error) {
    if (error instanceof NotFoundError) say(t.noMedia);
    else throw error;
  }
}

function render() {
  const t = TEXT[state.lang];
  document.documentElement.lang = state.lang;
  document.documentElement.dir = state.lang === 'ar' ? 'rtl' : 'ltr';
  $('controls').replaceChildren(
    h('button', { type: 'button', lang: state.lang === 'ar' ? 'en' : 'ar', 'data-testid': 'lang', onclick: () => switchLanguage() }, t.otherLang),
    ...(state.user
      ? [h('span', { 'data-testid': 'user', title: state.user.sub }, t.signedInAs(state.user.scope.split(' ').map((scope) => t.scopes[scope] ?? scope).join(state.lang === 'ar' ? '، ' : ', '))), h('button', { type: 'button', 'data-testid': 'sign-out', onclick: () => void act(signOut) }, t.signOut)]
      : [h('button', { type: 'button', class: 'primary', 'data-testid': 'sign-in', onclick: () => void signIn() }, t.signIn)]),
  );
  if (!state.user) {
    $('main').replaceChildren(h('p', {}, t.intro));
    return;
  }
  // The audio element survives re-renders, so playback goes on while browsing.
  const audio = document.querySelector('audio') ?? h('audio', { controls: '', 'data-testid': 'audio' });
  $('main').replaceChildren(
    h('div', { class: 'layout' },
      h('section', { 'aria-labelledby': 'songs-heading' },
        h('h2', { id: 'songs-heading' }, t.songs),
        h('ol', { class: 'songs', start: String(state.songPage * SONGS_PER_PAGE + 1), 'data-testid': 'songs' },
          ...state.songs.map((song) => h('li', { 'data-song': song.id?.value ?? '' },
            h('div', { class: 'song' },
              h('span', {}, h('strong', { lang: state.lang }, song.title?.value ?? ''), ' ',
                settings.mediaSongs.includes(song.id?.value ?? '') ? h('span', { class: 'meta' }, `♪ ${t.hasMedia}`) : null),
              h('button', { type: 'button', 'aria-label': `${t.play}: ${song.title?.value ?? ''}`, 'data-testid': 'play', onclick: () => void act(() => play(song)) }, t.play)),
            h('div', { class: 'meta' }, `${t.by} `,
              ...(song.artists ?? []).flatMap((artist, i) => [
                i > 0 ? '، ' : '',
                h('button', { type: 'button', class: 'link', 'data-testid': 'artist', onclick: () => void act(() => selectArtist(artist.id!.value, artist.name?.value ?? '')) }, artist.name?.value ?? ''),
              ]),
              ` · ${duration(song.durationMs)}`)))),
        h('div', { class: 'pager' },
          h('button', { type: 'button', 'data-testid': 'previous', ...(state.songPage === 0 ? { disabled: '' } : {}), onclick: () => void act(() => turnSongPage(-1)) }, t.previous),
          h('span', { 'data-testid': 'page' }, t.page(state.songPage + 1)),
          h('button', { type: 'button', 'data-testid': 'next', onclick: () => void act(() => turnSongPage(1)) }, t.next))),
      h('aside', {},
        h('section', { 'aria-labelledby': 'player-heading' },
          h('h2', { id: 'player-heading' }, t.player),
          h('label', {}, `${t.quality} `,
            qualitySelect(t)),
          audio,
          state.nowPlaying ? h('p', { 'data-testid': 'now-playing' }, t.nowPlaying(state.nowPlaying)) : null),
        h('section', { 'aria-labelledby': 'related-heading' },
          h('h2', { id: 'related-heading' }, state.artist ? t.related(state.artist.name) : t.related('…')),
          state.artist
            ? h('div', {},
                h('ul', { 'data-testid': 'related' }, ...state.related.map((artist) => h('li', {},
                  h('button', { type: 'button', class: 'link', onclick: () => void act(() => selectArtist(artist.id.value, artist.name.value)) }, artist.name.value),
                  h('span', { class: 'meta' }, ` · ${artist.nationality}`)))),
                state.relatedToken
                  ? h('button', { type: 'button', 'data-testid': 'more', onclick: () => void act(() => loadRelated(false)) }, t.more)
                  : h('p', { class: 'meta', 'data-testid': 'no-more' }, t.noMore))
            : h('p', { class: 'meta' }, t.pickArtist)))),
  );
}

function qualitySelect(t: (typeof TEXT)[Lang]) {
  const select = h('select', { 'data-testid': 'quality', onchange: (event) => void (state.quality = (event.target as HTMLSelectElement).value as AudioQuality) },
    ...(Object.keys(t.qualities) as AudioQuality[]).map((quality) =>
      h('option', { value: quality, ...(quality === state.quality ? { selected: '' } : {}) }, t.qualities[quality])));
  return select;
}

async function signIn() {
  location.assign(await maqam.auth.createAuthorizationUrl({ scope: 'read stream' }));
}

async function signOut() {
  await maqam.auth.signOut();
  state.user = null;
  state.artist = null;
  state.nowPlaying = '';
  document.querySelector('audio')?.remove();
}

async function turnSongPage(step: number) {
  state.songPage = Math.max(0, state.songPage + step);
  await loadSongs();
}

async function selectArtist(id: string, name: string) {
  state.artist = { id, name };
  await loadRelated(true);
}

async function switchLanguage() {
  state.lang = state.lang === 'ar' ? 'en' : 'ar';
  localStorage.setItem('maqam-demo:lang', state.lang);
  // Names come localized from the API: ask again in the new language.
  await act(async () => {
    if (!state.user) return;
    await loadSongs();
    if (state.artist) {
      const { id } = state.artist;
      const named = state.songs.flatMap((song) => song.artists ?? []).find((artist) => artist.id?.value === id)?.name?.value
        ?? state.related.find((artist) => artist.id.value === id)?.name.value;
      state.artist = { id, name: named ?? state.artist.name };
      const shown = state.related.length;
      await loadRelated(true);
      while (state.related.length < shown && state.relatedToken) await loadRelated(false);
    }
  });
}

async function start() {
  if (location.pathname === '/demo/callback') {
    const url = location.href;
    history.replaceState(null, '', '/demo');
    await act(async () => void (await maqam.auth.handleRedirect(url)));
  }
  if (await maqam.auth.tokens()) {
    await act(async () => {
      state.user = await maqam.auth.tokenInfo();
      await loadSongs();
    });
  } else {
    render();
  }
}

await start();
