import type { ErrorCode, FieldViolation } from '@maqam/contract';

export type MessageLocale = 'ar' | 'en';
export const MESSAGE_LOCALES: readonly MessageLocale[] = ['ar', 'en'];

type Localized = Readonly<Record<MessageLocale, string>>;

/** The HTTP status of each error code (contract section 1). */
export const STATUS_OF_CODE: Readonly<Record<ErrorCode, number>> = {
  ERROR_CODE_UNSPECIFIED: 500,
  ERROR_CODE_INVALID_REQUEST: 400,
  ERROR_CODE_UNAUTHENTICATED: 401,
  ERROR_CODE_PERMISSION_DENIED: 403,
  ERROR_CODE_NOT_FOUND: 404,
  ERROR_CODE_CONFLICT: 409,
  ERROR_CODE_RATE_LIMITED: 429,
  ERROR_CODE_INTERNAL: 500,
  ERROR_CODE_UNAVAILABLE: 503,
};

interface CatalogEntry {
  readonly code: ErrorCode;
  /** Only set where the contract names another status for the code (413, 405, 414, 431). */
  readonly status?: number;
  readonly message: Localized;
  /** The RFC 6749 §5.2 `error` the token endpoints answer it with (else one of the status's: invalid_request...). */
  readonly oauthError?: string;
}

/**
 * The one catalog of errors the API answers with. `message` texts may hold
 * `{name}` placeholders filled from the error's params.
 */
export const ERRORS = {
  invalidRequest: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: { en: 'The request is not valid; see violations.', ar: 'الطلب غير صالح؛ راجع قائمة المخالفات.' },
  },
  bodyTooLarge: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    status: 413,
    message: { en: 'The request body is larger than {limit#bytes}.', ar: 'حجم جسم الطلب أكبر من {limit#bytes}.' },
  },
  methodNotAllowed: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    status: 405,
    message: { en: 'Method {method} is not allowed here; allowed: {allowed}.', ar: 'الطريقة {method} غير مسموحة هنا؛ المسموح: {allowed}.' },
  },
  uriTooLong: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    status: 414,
    message: { en: 'A path segment of the request is longer than {limit#chars}.', ar: 'أحد أجزاء مسار الطلب أطول من {limit#chars}.' },
  },
  headersTooLarge: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    status: 431,
    message: { en: 'The request headers are too large.', ar: 'ترويسات الطلب كبيرة جدًا.' },
  },
  credentialsMissing: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    message: {
      en: 'Send an access token in Authorization (Bearer) or an API key in x-api-key.',
      ar: 'أرسل رمز وصول في ترويسة Authorization (Bearer) أو مفتاح API في x-api-key.',
    },
  },
  accessTokenInvalid: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    message: { en: 'The access token is unknown, expired or revoked.', ar: 'رمز الوصول غير معروف أو منتهي الصلاحية أو ملغى.' },
  },
  apiKeyInvalid: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    message: { en: 'The API key is unknown, expired or revoked.', ar: 'مفتاح API غير معروف أو منتهي الصلاحية أو ملغى.' },
  },
  scopeMissing: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: { en: 'The access token lacks the "{scope}" scope.', ar: 'رمز الوصول لا يملك النطاق "{scope}".' },
  },
  apiKeyNotAllowed: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: {
      en: 'API keys cannot call this operation; sign the user in and use an OAuth access token.',
      ar: 'لا تصلح مفاتيح API لهذه العملية؛ سجّل دخول المستخدم واستخدم رمز وصول OAuth.',
    },
  },
  apiKeyHasNoUser: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: {
      en: 'An API key acts for no user, and this operation is a user\'s; sign the user in and use an OAuth access token.',
      ar: 'لا يمثّل مفتاح API أي مستخدم، وهذه العملية خاصة بمستخدم؛ سجّل دخول المستخدم واستخدم رمز وصول OAuth.',
    },
  },
  idempotencyKeyReused: {
    code: 'ERROR_CODE_CONFLICT',
    message: {
      en: 'This Idempotency-Key was already used for a different request; use a new key for a new request.',
      ar: 'استُخدم مفتاح Idempotency-Key هذا من قبل لطلب مختلف؛ استخدم مفتاحًا جديدًا لكل طلب جديد.',
    },
  },
  idempotencyKeyInFlight: {
    code: 'ERROR_CODE_CONFLICT',
    message: {
      en: 'A request with this Idempotency-Key is still being answered; retry it in a moment.',
      ar: 'ما زال طلب بمفتاح Idempotency-Key هذا قيد التنفيذ؛ أعد المحاولة بعد لحظات.',
    },
  },
  changesCursorExpired: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: {
      en: 'This cursor is older than the {days#days} changes are kept; read the lists again, then follow the changes from a new cursor.',
      ar: 'هذا المؤشر أقدم من {days#days}، وهي مدة حفظ التغييرات؛ اقرأ القوائم من جديد، ثم تابع التغييرات من مؤشر جديد.',
    },
  },
  playTooOld: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: { en: 'The play "{id}" started more than 30 days ago.', ar: 'بدأ التشغيل "{id}" قبل أكثر من 30 يومًا.' },
  },
  playInFuture: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: { en: 'The play "{id}" starts more than 5 minutes from now.', ar: 'يبدأ التشغيل "{id}" بعد أكثر من 5 دقائق من الآن.' },
  },
  progressInFuture: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: { en: 'The report of "{id}" is dated more than 5 minutes from now.', ar: 'تقرير "{id}" مؤرَّخ بأكثر من 5 دقائق من الآن.' },
  },
  progressTooOld: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: { en: 'The report of "{id}" is dated more than 30 days ago.', ar: 'تقرير "{id}" مؤرَّخ بأكثر من 30 يومًا مضت.' },
  },
  progressTimeInvalid: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: {
      en: 'The report of "{id}" has a reportedAt that names no instant; send an RFC 3339 time such as 2026-01-31T20:15:00.000Z.',
      ar: 'تقرير "{id}" يحمل reportedAt لا يدل على لحظة؛ أرسل وقتًا بصيغة RFC 3339 مثل 2026-01-31T20:15:00.000Z.',
    },
  },
  playStartedAtInvalid: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: {
      en: 'The play "{id}" has a startedAt that names no instant; send an RFC 3339 time such as 2026-01-31T20:15:00.000Z.',
      ar: 'قيمة startedAt في التشغيل "{id}" لا تدل على لحظة حقيقية؛ أرسل وقتًا بصيغة RFC 3339 مثل 2026-01-31T20:15:00.000Z.',
    },
  },
  playlistNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No playlist with id "{id}".', ar: 'لا توجد قائمة تشغيل بالمعرّف "{id}".' },
  },
  playlistNotYours: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: { en: 'Only the owner of the playlist "{id}" may change it.', ar: 'لا يغيّر قائمة التشغيل "{id}" إلا مالكها.' },
  },
  playlistModified: {
    code: 'ERROR_CODE_CONFLICT',
    status: 412,
    message: {
      en: 'The playlist has changed since version {expected}; it is now at version {version} (ETag). Read it again and redo the change.',
      ar: 'تغيّرت قائمة التشغيل منذ الإصدار {expected}؛ وهي الآن في الإصدار {version} (ETag). اقرأها من جديد وأعد التغيير.',
    },
  },
  playlistVersionRequired: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    status: 428,
    message: {
      en: 'Replacing every entry of a playlist needs If-Match with the version you read, so no change made since is lost.',
      ar: 'استبدال كل عناصر قائمة التشغيل يتطلب ترويسة If-Match بالإصدار الذي قرأته، كي لا يضيع أي تغيير جرى بعده.',
    },
  },
  playlistSpotFull: {
    code: 'ERROR_CODE_CONFLICT',
    message: {
      en: 'Too many entries were put one at a time just before "{id}"; add them in one request, or put them elsewhere.',
      ar: 'وُضعت عناصر كثيرة جدًا واحدًا تلو الآخر قبل "{id}" مباشرة؛ أضفها في طلب واحد أو ضعها في مكان آخر.',
    },
  },
  playlistEntryNotFound: {
    code: 'ERROR_CODE_CONFLICT',
    message: {
      en: 'The playlist has no entry "{id}" (any more); read it again.',
      ar: 'لا يوجد (أو لم يعد يوجد) في قائمة التشغيل عنصر بالمعرّف "{id}"؛ اقرأها من جديد.',
    },
  },
  playlistFull: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: {
      en: 'A playlist holds {limit#entries} at most; this one has {count} and the request adds {adding}. Nothing was changed.',
      ar: 'تتسع قائمة التشغيل لـ{limit#entries} على الأكثر؛ وفي هذه {count} ويضيف الطلب {adding}. لم يتغير شيء.',
    },
  },
  tooManyPlaylists: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    message: {
      en: 'A user may have {limit#playlists} at most; delete one to make another. Nothing was changed.',
      ar: 'يحق للمستخدم {limit#playlists} على الأكثر؛ احذف واحدة لتنشئ أخرى. لم يتغير شيء.',
    },
  },
  routeNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No operation at {method} {path}.', ar: 'لا توجد عملية عند {method} {path}.' },
  },
  artistNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No artist with id "{id}".', ar: 'لا يوجد فنان بالمعرّف "{id}".' },
  },
  songNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No song with id "{id}".', ar: 'لا توجد أغنية بالمعرّف "{id}".' },
  },
  albumNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No album with id "{id}".', ar: 'لا يوجد ألبوم بالمعرّف "{id}".' },
  },
  showNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No show with id "{id}".', ar: 'لا يوجد مسلسل بالمعرّف "{id}".' },
  },
  seasonNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No season with id "{id}".', ar: 'لا يوجد موسم بالمعرّف "{id}".' },
  },
  episodeNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No episode with id "{id}".', ar: 'لا توجد حلقة بالمعرّف "{id}".' },
  },
  movieNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'No film with id "{id}".', ar: 'لا يوجد فيلم بالمعرّف "{id}".' },
  },
  lyricsNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'The song "{id}" has no lyrics.', ar: 'لا توجد كلمات للأغنية "{id}".' },
  },
  grantCodeUnknown: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The authorization code is unknown.', ar: 'رمز التفويض غير معروف.' },
  },
  grantCodeReused: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The authorization code was already used; everything issued from it is revoked.', ar: 'رمز التفويض استُخدم من قبل، فأُلغي كل ما صدر عنه.' },
  },
  grantCodeTooManyChecks: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The authorization code failed too many checks; sign in again.', ar: 'أخفق رمز التفويض في عدد كبير من التحققات؛ سجّل الدخول من جديد.' },
  },
  grantCodeExpired: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The authorization code has expired.', ar: 'انتهت صلاحية رمز التفويض.' },
  },
  grantCodeOtherClient: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The authorization code was issued to another client.', ar: 'صدر رمز التفويض لعميل آخر.' },
  },
  grantRedirectMismatch: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The redirect URI differs from the one of the authorization request.', ar: 'يختلف عنوان إعادة التوجيه عن العنوان الوارد في طلب التفويض.' },
  },
  grantVerifierMismatch: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The code verifier does not match the code challenge.', ar: 'لا يطابق متحقِّق الرمز تحدّيَ الرمز.' },
  },
  grantCodeSignInRevoked: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The sign-in was revoked.', ar: 'أُلغي تسجيل الدخول.' },
  },
  grantCodeAccountDisabled: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The account is disabled.', ar: 'الحساب معطَّل.' },
  },
  refreshUnknown: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    oauthError: 'invalid_grant',
    message: { en: 'The refresh token is unknown.', ar: 'رمز التحديث غير معروف.' },
  },
  refreshOtherClient: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    oauthError: 'invalid_grant',
    message: { en: 'The refresh token was issued to another client.', ar: 'صدر رمز التحديث لعميل آخر.' },
  },
  refreshReused: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    oauthError: 'invalid_grant',
    message: { en: 'The refresh token was already used; sign in again.', ar: 'رمز التحديث استُخدم من قبل؛ سجّل الدخول من جديد.' },
  },
  refreshSignInRevoked: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    oauthError: 'invalid_grant',
    message: { en: 'The sign-in was revoked; sign in again.', ar: 'أُلغي تسجيل الدخول؛ سجّل الدخول من جديد.' },
  },
  refreshAccountDisabled: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    oauthError: 'invalid_grant',
    message: { en: 'The account is disabled.', ar: 'الحساب معطَّل.' },
  },
  refreshExpired: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    oauthError: 'invalid_grant',
    message: { en: 'The refresh token has expired; sign in again.', ar: 'انتهت صلاحية رمز التحديث؛ سجّل الدخول من جديد.' },
  },
  clientUnknown: {
    code: 'ERROR_CODE_UNAUTHENTICATED',
    message: { en: 'No client with client_id "{clientId}".', ar: 'لا يوجد عميل بالمعرّف "{clientId}".' },
  },
  tokenInfoNeedsToken: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: {
      en: 'TokenInfo inspects OAuth access tokens; an API key is not one.',
      ar: 'تفحص TokenInfo رموز وصول OAuth فقط، ومفتاح API ليس منها.',
    },
  },
  mediaNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'Song "{id}" has no playable media yet.', ar: 'الأغنية "{id}" ليس لها وسائط قابلة للتشغيل بعد.' },
  },
  mediaNotFoundAtQuality: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: {
      en: 'Song "{id}" has no playable media at or below quality {quality} yet.',
      ar: 'الأغنية "{id}" ليس لها بعدُ وسائط قابلة للتشغيل بجودة {quality} أو أدنى منها.',
    },
  },
  videoMediaNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: '"{id}" has no playable video yet.', ar: 'ليس لـ"{id}" فيديو قابل للتشغيل بعد.' },
  },
  videoMediaNotFoundAtQuality: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: '"{id}" has no playable video at or below quality {quality}.', ar: 'ليس لـ"{id}" فيديو قابل للتشغيل بجودة {quality} أو أدنى منها.' },
  },
  ageRatingAboveCap: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: {
      en: '"{id}" is rated {rating}, above this account\'s parental limit of {cap}.',
      ar: '"{id}" مصنّف {rating}، وهو أعلى من حد الرقابة الأبوية لهذا الحساب ({cap}).',
    },
  },
  streamUrlInvalid: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: { en: 'This stream URL has expired or is not valid; acquire the stream again.', ar: 'انتهت صلاحية رابط البث هذا أو أنه غير صالح؛ اطلب البث من جديد.' },
  },
  rangeNotSatisfiable: {
    code: 'ERROR_CODE_INVALID_REQUEST',
    status: 416,
    message: { en: 'The requested byte range is outside the file.', ar: 'نطاق البايتات المطلوب خارج الملف.' },
  },
  segmentPreconditionFailed: {
    code: 'ERROR_CODE_CONFLICT',
    status: 412,
    message: {
      en: 'The segment is not the one If-Match or If-Unmodified-Since names; fetch it again without them.',
      ar: 'المقطع ليس الذي يسمّيه If-Match أو If-Unmodified-Since؛ اطلبه من جديد من دونهما.',
    },
  },
  rateLimited: {
    code: 'ERROR_CODE_RATE_LIMITED',
    message: { en: 'Too many requests; retry after {retryAfter} s.', ar: 'طلبات كثيرة جدًا؛ أعد المحاولة بعد {retryAfter} ثانية.' },
  },
  apiKeyScopeMissing: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: {
      en: 'This API key lacks the "{scope}" scope; its developer can make a key that has it.',
      ar: 'مفتاح API هذا لا يملك النطاق "{scope}"؛ يستطيع مطوّره إنشاء مفتاح يملكه.',
    },
  },
  apiKeyRateLimited: {
    code: 'ERROR_CODE_RATE_LIMITED',
    message: {
      en: 'This API key has spent its own limit of {limit} calls a minute; retry after {retryAfter} s.',
      ar: 'استنفد مفتاح API هذا حدّه الخاص البالغ {limit} طلبًا في الدقيقة؛ أعد المحاولة بعد {retryAfter} ثانية.',
    },
  },
  apiKeyServerRateLimited: {
    code: 'ERROR_CODE_RATE_LIMITED',
    message: {
      en: 'This API key has spent the server\'s limit of {limit} calls a minute per key; retry after {retryAfter} s.',
      ar: 'استنفد مفتاح API هذا حدّ الخادم البالغ {limit} طلبًا في الدقيقة لكل مفتاح؛ أعد المحاولة بعد {retryAfter} ثانية.',
    },
  },
  developerRoleMissing: {
    code: 'ERROR_CODE_PERMISSION_DENIED',
    message: {
      en: 'Your account does not have the developer role; an operator can grant it (maqam users grant USER developer).',
      ar: 'لا يملك حسابك دور المطوّر؛ يستطيع المشغّل منحه (maqam users grant USER developer).',
    },
  },
  apiKeyNotFound: {
    code: 'ERROR_CODE_NOT_FOUND',
    message: { en: 'You have no API key "{id}".', ar: 'لا تملك مفتاح API بالمعرّف "{id}".' },
  },
  apiKeyAlreadyRevoked: {
    code: 'ERROR_CODE_CONFLICT',
    message: { en: 'The API key "{id}" is already revoked.', ar: 'مفتاح API "{id}" ملغى من قبل.' },
  },
  apiKeyNotRotatable: {
    code: 'ERROR_CODE_CONFLICT',
    message: {
      en: 'The API key "{id}" is revoked, expired or already rotated, so it cannot be rotated; create a new key instead.',
      ar: 'مفتاح API "{id}" ملغى أو منتهي الصلاحية أو سبق تدويره، فلا يمكن تدويره؛ أنشئ مفتاحًا جديدًا بدلًا منه.',
    },
  },
  tooManyApiKeys: {
    code: 'ERROR_CODE_CONFLICT',
    message: {
      en: 'You already have {limit} API keys, the most one developer may hold (revoked ones included).',
      ar: 'لديك {limit} مفتاح API، وهو أقصى ما يملكه مطوّر واحد (بما فيها الملغاة).',
    },
  },
  internal: {
    code: 'ERROR_CODE_INTERNAL',
    message: {
      en: 'Something went wrong on our side; quote request id {requestId} when reporting it.',
      ar: 'حدث خطأ من جهتنا؛ اذكر معرّف الطلب {requestId} عند الإبلاغ عنه.',
    },
  },
  unavailable: {
    code: 'ERROR_CODE_UNAVAILABLE',
    message: { en: 'The service is temporarily unavailable; retry later.', ar: 'الخدمة غير متاحة مؤقتًا؛ أعد المحاولة لاحقًا.' },
  },
} as const satisfies Record<string, CatalogEntry>;

export type ErrorReason = keyof typeof ERRORS;

/** Descriptions of field violations, by reason: whole sentences that name the field ({field}), in each language. */
export const VIOLATIONS = {
  oneTitle: { en: '{field}: give exactly one of {first} and {second}.', ar: '{field}: أرسل واحدًا فقط من {first} و{second}.' },
  required: { en: '{field} is required.', ar: 'لم يُرسَل {field}، وهو مطلوب.' },
  // One reason a JSON type, so that each language names the type in its own words.
  notInteger: { en: '{field} must be a whole number.', ar: 'يجب أن يكون {field} عددًا صحيحًا.' },
  notNumber: { en: '{field} must be a number.', ar: 'يجب أن يكون {field} عددًا.' },
  notString: { en: '{field} must be a string.', ar: 'يجب أن يكون {field} نصًا.' },
  notBoolean: { en: '{field} must be true or false.', ar: 'يجب أن يكون {field} إما true وإما false.' },
  notArray: { en: '{field} must be a list.', ar: 'يجب أن يكون {field} قائمة.' },
  notObject: { en: '{field} must be an object.', ar: 'يجب أن يكون {field} كائنًا.' },
  typedId: { en: '{field} must be an object such as {example}.', ar: 'يجب أن يكون {field} كائنًا مثل {example}.' },
  notNull: { en: '{field} must be null.', ar: 'يجب أن تكون قيمة {field} هي null.' },
  notOneOf: { en: '{field} must be one of {allowed}.', ar: 'يجب أن يكون {field} إحدى القيم: {allowed}.' },
  minLength: { en: '{field} must not be shorter than {limit#chars}.', ar: 'يجب ألا يقل طول {field} عن {limit#chars}.' },
  maxLength: { en: '{field} must not be longer than {limit#chars}.', ar: 'يجب ألا يزيد طول {field} عن {limit#chars}.' },
  minItems: { en: '{field} must have at least {limit#items}.', ar: 'يجب أن يحتوي {field} على {limit#items} على الأقل.' },
  maxItems: { en: '{field} must have at most {limit#items}.', ar: 'يجب ألا يحتوي {field} على أكثر من {limit#items}.' },
  minimum: { en: '{field} must be at least {limit}.', ar: 'يجب ألا تقل قيمة {field} عن {limit}.' },
  maximum: { en: '{field} must be at most {limit}.', ar: 'يجب ألا تزيد قيمة {field} عن {limit}.' },
  pattern: { en: '{field} has an invalid format.', ar: 'صيغة {field} غير صالحة.' },
  invalid: { en: '{field} is not valid.', ar: 'قيمة {field} غير صالحة.' },
  notHttp: { en: 'The {field} is not valid HTTP/1.1.', ar: 'ما أُرسل في {field} ليس HTTP/1.1 صالحًا.' },
  incomplete: { en: 'The {field} did not arrive in full in time.', ar: 'لم يصل {field} كاملًا في الوقت المحدد.' },
  bodyNotJson: { en: 'The {field} is not valid JSON: {detail}.', ar: 'ليس {field} بصيغة JSON صالحة: {detail}.' },
  bodyEmpty: { en: 'The {field} is empty; it must be a JSON object.', ar: '{field} فارغ، ويجب أن يكون كائن JSON.' },
  bodyNotUtf8: { en: 'The {field} is not UTF-8 text; send JSON encoded as UTF-8.', ar: 'ليس {field} نصًا بترميز UTF-8؛ أرسل JSON بترميز UTF-8.' },
  tooDeep: {
    en: 'The {field} nests lists and objects more than {limit#levels} deep.',
    ar: 'تتداخل القوائم والكائنات في {field} إلى عمق يزيد على {limit#levels}.',
  },
  contentTypeJson: { en: '{field} must be application/json.', ar: 'يجب أن يكون {field} هو application/json.' },
  bothCredentials: {
    en: 'Send either Authorization or x-api-key, not both.',
    ar: 'أرسل Authorization أو x-api-key، لا كليهما.',
  },
  authorizationScheme: { en: '{field} must be of the form "Bearer <token>".', ar: 'يجب أن يكون {field} بالصيغة "Bearer <token>".' },
  acceptLanguage: { en: '{field} is not a valid Accept-Language value (RFC 9110).', ar: 'قيمة {field} ليست قيمة Accept-Language صالحة (RFC 9110).' },
  aliasConflict: { en: '{field} conflicts with {other}, given with a different value.', ar: 'يتعارض {field} مع {other} الممرَّر بقيمة مختلفة.' },
  duplicateField: { en: '{field} is given twice, as {other} too.', ar: 'مُرِّر {field} مرتين، وأيضًا باسم {other}.' },
  grantType: { en: '{field} must be authorization_code or refresh_token.', ar: 'يجب أن يكون {field} إما authorization_code وإما refresh_token.' },
  codeVerifier: {
    en: '{field} must be 43 to 128 characters of A-Z, a-z, 0-9, "-", ".", "_", "~".',
    ar: 'يجب أن يتكون {field} من 43 إلى 128 حرفًا من A-Z وa-z و0-9 و"-" و"." و"_" و"~".',
  },
  grant: { en: '{field} is not valid for this grant.', ar: 'قيمة {field} غير صالحة لهذه المنحة.' },
  pageToken: {
    en: '{field} is not a page token this server issued for this list, or it has expired.',
    ar: 'ليس {field} رمز صفحة أصدره هذا الخادم لهذه القائمة، أو انتهت صلاحيته.',
  },
  entityTag: {
    en: '{field} must be entity-tags such as "7" (in double quotes), or *.',
    ar: 'يجب أن يكون {field} وسوم كيان مثل "7" (بين علامتي اقتباس مزدوجتين)، أو *.',
  },
  libraryTypes: {
    en: '{field} must be a comma-separated list of song and album.',
    ar: 'يجب أن يكون {field} قائمة مفصولة بفواصل من song وalbum.',
  },
  idsInAll: {
    en: 'songIdList and albumIdList must hold {limit#ids} at most in all, and at least one.',
    ar: 'يجب أن تضم songIdList وalbumIdList معًا معرّفًا واحدًا على الأقل و{limit#ids} على الأكثر.',
  },
  idempotencyKey: {
    en: '{field} must be 1 to 255 printable ASCII characters.',
    ar: 'يجب أن يتكون {field} من 1 إلى 255 حرفًا من حروف ASCII القابلة للطباعة.',
  },
  changesCursor: {
    en: "{field} is not a cursor of your library's changes.",
    ar: 'ليس {field} مؤشرًا لتغييرات مكتبتك.',
  },
  changesCursorExpired: {
    en: '{field} is older than the {days#days} changes are kept.',
    ar: 'المؤشر {field} أقدم من {days#days}، وهي مدة حفظ التغييرات.',
  },
  songUnknown: {
    en: '{field} names no song in the catalog (unknown or withdrawn).',
    ar: 'لا يدل {field} على أغنية في الكتالوج (غير معروفة أو مسحوبة).',
  },
  trimmedLength: {
    en: '{field} must be {min} to {max} characters once trimmed.',
    ar: 'يجب أن يكون طول {field} بين {min} و{max} حرفًا بعد حذف المسافات من طرفيه.',
  },
  textNotWellFormed: {
    en: '{field} holds a character that is not Unicode text (a lone surrogate); send it as it should read.',
    ar: 'يحتوي {field} على رمز ليس نصًا بترميز يونيكود (نصف زوج بديل منفرد)؛ أرسله كما ينبغي أن يُقرأ.',
  },
  playlistsPerUser: {
    en: 'A user may have {limit#playlists} at most; {field} would make one more.',
    ar: 'يحق للمستخدم {limit#playlists} على الأكثر؛ وينشئ {field} قائمة أخرى فوقها.',
  },
  entryTwice: {
    en: '{field} names an entry already named in itemIds.',
    ar: 'يكرر {field} عنصرًا ورد من قبل في itemIds.',
  },
  entryMovedBeforeItself: {
    en: '{field} is one of the entries being moved.',
    ar: 'العنصر {field} هو أحد العناصر المنقولة.',
  },
  searchTypes: {
    en: '{field} must be a comma-separated list of song, artist and album.',
    ar: 'يجب أن يكون {field} قائمة مفصولة بفواصل من song وartist وalbum.',
  },
} as const satisfies Record<string, Localized>;

export type ViolationReason = keyof typeof VIOLATIONS;

export type Params = Readonly<Record<string, string | number>>;

type PluralForms = Partial<Record<Intl.LDMLPluralRule, string>> & { other: string };

/**
 * Nouns counted in messages, in each plural form of each language, because
 * Arabic has six (zero, one, two, few, many, other): "حرف واحد", "حرفين",
 * "3 أحرف", "11 حرفًا", "100 حرف". A template writes `{limit#chars}`.
 */
const COUNTED: Record<string, Record<MessageLocale, PluralForms>> = {
  chars: {
    en: { one: '{n} character', other: '{n} characters' },
    ar: { one: 'حرف واحد', two: 'حرفين', few: '{n} أحرف', many: '{n} حرفًا', other: '{n} حرف' },
  },
  items: {
    en: { one: '{n} item', other: '{n} items' },
    ar: { one: 'عنصر واحد', two: 'عنصرين', few: '{n} عناصر', many: '{n} عنصرًا', other: '{n} عنصر' },
  },
  ids: {
    en: { one: '{n} id', other: '{n} ids' },
    ar: { one: 'معرّف واحد', two: 'معرّفين', few: '{n} معرّفات', many: '{n} معرّفًا', other: '{n} معرّف' },
  },
  entries: {
    en: { one: '{n} entry', other: '{n} entries' },
    ar: { one: 'عنصر واحد', two: 'عنصرين', few: '{n} عناصر', many: '{n} عنصرًا', other: '{n} عنصر' },
  },
  playlists: {
    en: { one: '{n} playlist', other: '{n} playlists' },
    ar: { one: 'قائمة تشغيل واحدة', two: 'قائمتي تشغيل', few: '{n} قوائم تشغيل', many: '{n} قائمة تشغيل', other: '{n} قائمة تشغيل' },
  },
  days: {
    en: { one: '{n} day', other: '{n} days' },
    ar: { one: 'يوم واحد', two: 'يومين', few: '{n} أيام', many: '{n} يومًا', other: '{n} يوم' },
  },
  levels: {
    en: { one: '{n} level', other: '{n} levels' },
    ar: { one: 'مستوى واحد', two: 'مستويين', few: '{n} مستويات', many: '{n} مستوى', other: '{n} مستوى' },
  },
  bytes: {
    en: { one: '{n} byte', other: '{n} bytes' },
    ar: { one: 'بايت واحد', two: 'بايتين', few: '{n} بايتات', many: '{n} بايتًا', other: '{n} بايت' },
  },
};

const pluralRules = { ar: new Intl.PluralRules('ar'), en: new Intl.PluralRules('en') };

export function formatMessage(template: string, params: Params = {}, locale: MessageLocale = 'en'): string {
  return template.replace(/\{(\w+)(?:#(\w+))?\}/g, (whole, name: string, noun: string | undefined) => {
    if (!(name in params)) return whole;
    const value = params[name]!;
    const forms = noun === undefined ? undefined : COUNTED[noun]?.[locale];
    if (forms === undefined || typeof value !== 'number') return String(value);
    return (forms[pluralRules[locale].select(value)] ?? forms.other).replace('{n}', String(value));
  });
}

/**
 * The texts of the sign-in pages (oauth/sign-in-page.ts), beside the errors:
 * each a whole sentence or label in Arabic and in English (the pages show
 * both, Arabic first).
 */
export const PAGE_TEXTS = {
  signInTitle: { ar: 'تسجيل الدخول إلى مقام', en: 'Sign in to Maqam' },
  /** Follows the app's name. */
  asksPermission: { ar: 'يطلب الإذن بما يلي:', en: 'asks permission to:' },
  username: { ar: 'اسم المستخدم', en: 'Username' },
  password: { ar: 'كلمة المرور', en: 'Password' },
  allow: { ar: 'سماح', en: 'Allow' },
  deny: { ar: 'رفض', en: 'Deny' },
  cannotContinueTitle: { ar: 'تعذّر تسجيل الدخول', en: 'Sign-in cannot continue' },
  startAgain: { ar: 'ارجع إلى التطبيق وابدأ من جديد.', en: 'Go back to the app and start again.' },
  wrongPassword: { ar: 'اسم المستخدم أو كلمة المرور غير صحيحة.', en: 'The username or password is not correct.' },
  tooManyAttempts: { ar: 'محاولات كثيرة خاطئة. حاول مرة أخرى بعد 15 دقيقة.', en: 'Too many failed attempts. Try again in 15 minutes.' },
  pageExpired: { ar: 'انتهت صلاحية صفحة تسجيل الدخول أو لم تأتِ من مقام.', en: 'This sign-in page has expired or did not come from Maqam.' },
  pageUsed: {
    ar: 'استُخدمت صفحة تسجيل الدخول هذه من قبل. ارجع إلى التطبيق وابدأ تسجيل الدخول من جديد.',
    en: 'This sign-in page was already used. Go back to the app and start signing in again.',
  },
  appNotNamedOnce: { ar: 'يجب أن يحدد الطلب التطبيق مرة واحدة بالضبط.', en: 'The request must name the app (client_id) exactly once.' },
  appUnknown: { ar: 'هذا التطبيق غير مسجَّل لدى مقام.', en: 'This app is not registered with Maqam.' },
  returnAddressUnknown: { ar: 'عنوان العودة غير مسجَّل لهذا التطبيق.', en: 'The return address (redirect_uri) is not registered for this app.' },
} as const satisfies Record<string, Localized>;

/** The RFC 6749 §5.2 `error` the catalog gives a reason, if it gives one. */
export function oauthErrorOf(reason: ErrorReason): string | undefined {
  return (ERRORS[reason] as CatalogEntry).oauthError;
}

/** A field violation before localization: the field, why, and the values its text needs. */
export interface Violation {
  readonly field: string;
  readonly reason: ViolationReason;
  readonly params?: Params;
}

/** A violation as the answer gives it: its field, and a whole sentence in the answer's language that names the field. */
export function localizeViolation(v: Violation, locale: MessageLocale): FieldViolation {
  return { field: v.field, description: formatMessage(VIOLATIONS[v.reason][locale], { ...v.params, field: v.field }, locale) };
}

/**
 * The most violations one error carries, and so one answer lists: the first
 * hundred are enough to fix a request and send it again. Bounded so that
 * no request makes an answer as large as itself: 128,000 wrong ids made
 * 128,001 violations, and a 500 (issue 51).
 */
export const MAX_VIOLATIONS = 100;

/** What a DomainError carries beside its reason. */
export interface DomainErrorOptions {
  params?: Params;
  violations?: readonly Violation[];
  /** What went wrong underneath: logged, never answered. */
  cause?: unknown;
}

/**
 * A failure the domain names: a reason of the catalog above, with the values
 * its texts need and the fields at fault, and nothing of HTTP. Services,
 * repositories and storage throw it; the edge (http/error-handler.ts) answers
 * it with the catalog's status and texts. Everything in it is safe to show
 * the client; any other thrown value becomes a plain 500 `internal`.
 */
export class DomainError extends Error {
  readonly reason: ErrorReason;
  readonly code: ErrorCode;
  readonly params: Params;
  readonly violations: readonly Violation[];

  constructor(reason: ErrorReason, options: DomainErrorOptions = {}) {
    super(formatMessage(ERRORS[reason].message.en, options.params), options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'DomainError';
    this.reason = reason;
    this.code = ERRORS[reason].code;
    this.params = options.params ?? {};
    const violations = options.violations ?? [];
    this.violations = violations.length > MAX_VIOLATIONS ? violations.slice(0, MAX_VIOLATIONS) : violations;
  }

  localizedMessage(locale: MessageLocale): string {
    return formatMessage(ERRORS[this.reason].message[locale], this.params, locale);
  }
}

/**
 * An error as the HTTP edge answers it: a DomainError with the catalog's
 * status, and what its answer carries besides (headers such as Retry-After,
 * RFC 6749 members on the auth endpoints). Thrown by routes and hooks; the
 * error handler makes one of every DomainError.
 */
export class ApiError extends DomainError {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  /** RFC 6749 §5.2 members, answered beside code and message on the auth endpoints. */
  readonly oauth: { readonly error: string; readonly description: string } | undefined;

  constructor(
    reason: ErrorReason,
    options: DomainErrorOptions & { headers?: Record<string, string>; oauth?: { error: string; description: string } } = {},
  ) {
    super(reason, options);
    this.name = 'ApiError';
    const entry: CatalogEntry = ERRORS[reason];
    this.status = entry.status ?? STATUS_OF_CODE[entry.code];
    this.headers = options.headers ?? {};
    this.oauth = options.oauth;
  }

  /** The answer to a DomainError, with these headers. */
  static of(error: DomainError, headers: Record<string, string> = {}): ApiError {
    if (error instanceof ApiError) return error;
    return new ApiError(error.reason, { params: error.params, violations: error.violations, headers, cause: error.cause });
  }
}

/** An error as an item of a batch answers it, `{ code, message }`, in the request's language. */
export function localizedError(reason: ErrorReason, params: Params, locale: MessageLocale): { code: ErrorCode; message: string } {
  return { code: ERRORS[reason].code, message: formatMessage(ERRORS[reason].message[locale], params, locale) };
}

/** A 400 INVALID_REQUEST carrying the given violations. */
export function invalidRequest(...violations: Violation[]): DomainError {
  return new DomainError('invalidRequest', { violations });
}
