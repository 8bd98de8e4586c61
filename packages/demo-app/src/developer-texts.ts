// The Developer page's words, in Arabic and English: API keys, their
// rotation and revocation, the secret shown once, and the usage chart.
import type { ApiKey, ApiKeyScope } from '@maqam/sdk';
import { iso } from './bidi.ts';

const arabicPlural = new Intl.PluralRules('ar');

/** How long a rotated key's old secret keeps working, as the rotate form offers it (seconds). */
export const GRACE_CHOICES = [0, 3600, 24 * 3600, 7 * 24 * 3600] as const;
export type GraceSeconds = (typeof GRACE_CHOICES)[number];

export interface DeveloperTexts {
  developer: string;
  apiKeys: string;
  developerIntro: string;
  notDeveloper: string;
  needsDeveloperScope: string;
  newKey: string;
  keyName: string;
  newKeyName: (n: string) => string;
  keyAccess: string;
  scopeNames: Record<ApiKeyScope, string>;
  /** A key's scopes in a line of its card. */
  scopeShort: Record<ApiKeyScope, string>;
  rateLimit: string;
  rateLimitHint: string;
  createKey: string;
  pickScope: string;
  yourKeys: string;
  noKeys: string;
  pastKeys: (n: string) => string;
  keyStatus: Record<Exclude<ApiKey['status'], 'API_KEY_STATUS_ROTATING'>, string>;
  worksUntil: (time: string) => string;
  expiresOn: (time: string) => string;
  createdOn: (date: string) => string;
  lastUsed: (time: string) => string;
  neverUsed: string;
  /** `count` calls a minute, `n` the count in the page's digits. */
  callsPerMinute: (count: number, n: string) => string;
  noLimit: string;
  showUsage: (name: string) => string;
  usage: string;
  rotate: string;
  rotateKey: (name: string) => string;
  rotateHint: string;
  graceLegend: string;
  graces: Record<GraceSeconds, string>;
  revoke: string;
  revokeKey: (name: string) => string;
  confirmRevoke: (name: string) => string;
  cancel: string;
  newSecretTitle: (name: string) => string;
  secretLabel: string;
  secretWarning: string;
  copy: string;
  copied: string;
  copyBySelection: string;
  savedIt: string;
  oldWorksUntil: (time: string) => string;
  oldStopped: string;
  keyCreated: (name: string) => string;
  keyRotated: (name: string) => string;
  keyRevoked: (name: string) => string;
  usageOf: (name: string) => string;
  lastDays: (n: string) => string;
  successful: string;
  clientErrors: string;
  rateLimited: string;
  totalCalls: string;
  day: string;
  /** The chart's summary, for screen readers: the counts already in the page's digits. */
  usageSummary: (days: string, total: string, successful: string, clientErrors: string, rateLimited: string) => string;
  /** One day's bar, as its tooltip says it. */
  dayUsage: (date: string, successful: string, clientErrors: string, rateLimited: string) => string;
  noCalls: string;
  usageTableCaption: string;
  daysAreUtc: string;
  refresh: string;
}

export const DEVELOPER_TEXT: Record<'ar' | 'en', DeveloperTexts> = {
  ar: {
    developer: 'المطوّر',
    apiKeys: 'مفاتيح API',
    developerIntro: 'مفاتيح تقرأ بها تطبيقاتك كتالوج مقام دون تسجيل دخول: أرسل المفتاح في الترويسة x-api-key.',
    notDeveloper: 'هذه الصفحة للمطوّرين. يستطيع مشغّل الخادم أن يمنح حسابك دور المطوّر.',
    needsDeveloperScope: 'لتدير مفاتيحك، سجّل الخروج ثم الدخول من جديد واسمح لمقام بإدارة مفاتيح API الخاصة بك.',
    newKey: 'مفتاح جديد',
    keyName: 'اسم المفتاح',
    newKeyName: (n) => `مفتاحي ${n}`,
    keyAccess: 'ما يصل إليه',
    scopeNames: { catalog: 'كتالوج الموسيقى والبحث', video: 'كتالوج الفيديو', playlists: 'قوائم التشغيل العامة' },
    scopeShort: { catalog: 'الموسيقى', video: 'الفيديو', playlists: 'القوائم' },
    rateLimit: 'حدّ الطلبات في الدقيقة',
    rateLimitHint: 'اتركه فارغًا ليأخذ حدّ الخادم.',
    createKey: 'أنشئ المفتاح',
    pickScope: 'اختر شيئًا واحدًا على الأقل يصل إليه المفتاح.',
    yourKeys: 'مفاتيحك',
    noKeys: 'لا مفاتيح بعد. أنشئ مفتاحًا لتطبيقك.',
    pastKeys: (n) => `مفاتيح أُبطلت أو انتهت (${n})`,
    keyStatus: { API_KEY_STATUS_ACTIVE: 'يعمل', API_KEY_STATUS_REVOKED: 'أُبطل', API_KEY_STATUS_EXPIRED: 'انتهى' },
    worksUntil: (time) => `يعمل حتى ${time}`,
    expiresOn: (time) => `ينتهي في ${time}`,
    createdOn: (date) => `أُنشئ في ${date}`,
    lastUsed: (time) => `آخر استخدام ${time}`,
    neverUsed: 'لم يُستخدم بعد',
    // Arabic counts in six forms: طلب واحد، طلبان، ٣ طلبات، ١١ طلبًا، ١٠٠ طلب.
    callsPerMinute: (count, n) =>
      `${({ zero: `${n} طلب`, one: 'طلب واحد', two: 'طلبان', few: `${n} طلبات`, many: `${n} طلبًا`, other: `${n} طلب` })[arabicPlural.select(count)]} في الدقيقة`,
    noLimit: 'بلا حدّ للطلبات',
    showUsage: (name) => `استخدام «${iso(name)}»`,
    usage: 'الاستخدام',
    rotate: 'تدوير',
    rotateKey: (name) => `دوّر «${iso(name)}»`,
    rotateHint: 'يُنشأ مفتاح جديد بالاسم والصلاحيات والحدّ نفسها؛ انقل تطبيقك إليه قبل أن يتوقف القديم.',
    graceLegend: 'يبقى المفتاح القديم صالحًا',
    graces: { 0: 'لا، أوقفه الآن', 3600: 'ساعة', 86400: '٢٤ ساعة', 604800: '٧ أيام' },
    revoke: 'إبطال',
    revokeKey: (name) => `أبطل «${iso(name)}»`,
    confirmRevoke: (name) => `أتبطل «${iso(name)}»؟ تتوقف التطبيقات التي تستخدمه فورًا، ولا يمكن التراجع عن ذلك.`,
    cancel: 'تراجع',
    newSecretTitle: (name) => `مفتاح «${iso(name)}»`,
    secretLabel: 'المفتاح',
    secretWarning: 'انسخه الآن واحفظه في مكان آمن: لن يُعرض مرة أخرى. من يملكه يستطيع استخدام الواجهة باسم تطبيقك.',
    copy: 'انسخ',
    copied: 'نُسخ المفتاح.',
    copyBySelection: 'حُدّد المفتاح: انسخه بـ Ctrl+C أو ⌘C.',
    savedIt: 'حفظته',
    oldWorksUntil: (time) => `يبقى المفتاح القديم صالحًا حتى ${time}.`,
    oldStopped: 'توقف المفتاح القديم.',
    keyCreated: (name) => `أُنشئ «${iso(name)}».`,
    keyRotated: (name) => `دُوّر «${iso(name)}».`,
    keyRevoked: (name) => `أُبطل «${iso(name)}».`,
    usageOf: (name) => `طلبات «${iso(name)}»`,
    lastDays: (n) => `آخر ${n} يومًا`,
    successful: 'ناجحة',
    clientErrors: 'أخطاء العميل',
    rateLimited: 'تجاوزت الحدّ',
    totalCalls: 'المجموع',
    day: 'اليوم',
    usageSummary: (days, total, successful, clientErrors, rateLimited) =>
      `الطلبات في آخر ${days} يومًا: المجموع ${total}؛ ناجحة ${successful}، أخطاء العميل ${clientErrors}، تجاوزت الحدّ ${rateLimited}.`,
    dayUsage: (date, successful, clientErrors, rateLimited) => `${date}: ناجحة ${successful}، أخطاء العميل ${clientErrors}، تجاوزت الحدّ ${rateLimited}`,
    noCalls: 'لا طلبات في هذه الأيام بعد.',
    usageTableCaption: 'الطلبات في كل يوم كان فيه طلب',
    daysAreUtc: 'الأيام بتوقيت UTC.',
    refresh: 'حدّث',
  },
  en: {
    developer: 'Developer',
    apiKeys: 'API keys',
    developerIntro: 'Keys your apps use to read Maqam\'s catalog without signing in: send the key in the x-api-key header.',
    notDeveloper: 'This page is for developers. The server\'s operator can give your account the developer role.',
    needsDeveloperScope: 'To manage your keys, sign out, sign in again and allow Maqam to manage your API keys.',
    newKey: 'New key',
    keyName: 'Key name',
    newKeyName: (n) => `My key ${n}`,
    keyAccess: 'What it may read',
    scopeNames: { catalog: 'Music catalog and search', video: 'Video catalog', playlists: 'Public playlists' },
    scopeShort: { catalog: 'Music', video: 'Video', playlists: 'Playlists' },
    rateLimit: 'Calls per minute',
    rateLimitHint: 'Leave it empty for the server\'s limit.',
    createKey: 'Create key',
    pickScope: 'Choose at least one thing the key may read.',
    yourKeys: 'Your keys',
    noKeys: 'No keys yet. Create one for your app.',
    pastKeys: (n) => `Revoked and expired keys (${n})`,
    keyStatus: { API_KEY_STATUS_ACTIVE: 'Active', API_KEY_STATUS_REVOKED: 'Revoked', API_KEY_STATUS_EXPIRED: 'Expired' },
    worksUntil: (time) => `Works until ${time}`,
    expiresOn: (time) => `Expires ${time}`,
    createdOn: (date) => `Created ${date}`,
    lastUsed: (time) => `Last used ${time}`,
    neverUsed: 'Never used',
    callsPerMinute: (count, n) => `${n} ${count === 1 ? 'call' : 'calls'} a minute`,
    noLimit: 'No rate limit',
    showUsage: (name) => `Usage of “${iso(name)}”`,
    usage: 'Usage',
    rotate: 'Rotate',
    rotateKey: (name) => `Rotate “${iso(name)}”`,
    rotateHint: 'A new key is made with the same name, access and limit; move your app to it before the old one stops.',
    graceLegend: 'Keep the old key working',
    graces: { 0: 'No, stop it now', 3600: '1 hour', 86400: '24 hours', 604800: '7 days' },
    revoke: 'Revoke',
    revokeKey: (name) => `Revoke “${iso(name)}”`,
    confirmRevoke: (name) => `Revoke “${iso(name)}”? Apps using it stop at once, and this cannot be undone.`,
    cancel: 'Cancel',
    newSecretTitle: (name) => `The key “${iso(name)}”`,
    secretLabel: 'The key',
    secretWarning: 'Copy it now and keep it somewhere safe: it will not be shown again. Whoever holds it can call the API as your app.',
    copy: 'Copy',
    copied: 'Key copied.',
    copyBySelection: 'The key is selected: copy it with Ctrl+C or ⌘C.',
    savedIt: 'I have saved it',
    oldWorksUntil: (time) => `The old key keeps working until ${time}.`,
    oldStopped: 'The old key has stopped working.',
    keyCreated: (name) => `Created “${iso(name)}”.`,
    keyRotated: (name) => `Rotated “${iso(name)}”.`,
    keyRevoked: (name) => `Revoked “${iso(name)}”.`,
    usageOf: (name) => `Calls to “${iso(name)}”`,
    lastDays: (n) => `last ${n} days`,
    successful: 'Successful',
    clientErrors: 'Client errors',
    rateLimited: 'Rate limited',
    totalCalls: 'Total',
    day: 'Day',
    usageSummary: (days, total, successful, clientErrors, rateLimited) =>
      `Calls in the last ${days} days: ${total} in all. Successful: ${successful}; client errors: ${clientErrors}; rate limited: ${rateLimited}.`,
    dayUsage: (date, successful, clientErrors, rateLimited) => `${date}: successful ${successful}, client errors ${clientErrors}, rate limited ${rateLimited}`,
    noCalls: 'No calls in these days yet.',
    usageTableCaption: 'Calls on each day that had any',
    daysAreUtc: 'Days are in UTC.',
    refresh: 'Refresh',
  },
};
