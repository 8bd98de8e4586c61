import type { Scope } from '@maqam/contract';

/** What a scope is told by: the consent page's sentence in both languages, and the OpenAPI document's. */
interface ScopeTexts {
  /** On the consent page, after "asks permission to:". */
  readonly consent: { readonly ar: string; readonly en: string };
  /** In the OpenAPI document's OAuth flow. */
  readonly openapi: string;
}

/**
 * Every scope's texts (the list itself is the contract's SCOPE_NAMES): the
 * consent page (sign-in-page.ts), the OpenAPI document (app.ts) and the
 * discovery metadata (discovery.routes.ts) read them from here, and the
 * edge (http/access.ts) says which operation needs which.
 */
export const SCOPES = {
  read: {
    consent: { ar: 'قراءة الكتالوج ومكتبتك: الأغاني والفنانين وما حفظته وما استمعت إليه', en: 'Read the catalog and your library: songs, artists, what you saved and what you played' },
    openapi: 'Read the catalog and the user\'s library.',
  },
  stream: {
    consent: { ar: 'تشغيل الموسيقى باسمك', en: 'Play music on your behalf' },
    openapi: 'Acquire streams of songs.',
  },
  write: {
    consent: {
      ar: 'تعديل مكتبتك: حفظ الأغاني والألبومات، ومتابعة الفنانين، وتسجيل ما تستمع إليه',
      en: 'Change your library: save songs and albums, follow artists, and record what you play',
    },
    openapi: 'Change the user\'s library: saves, follows, plays, playlists.',
  },
  developer: {
    consent: {
      ar: 'إدارة مفاتيح API الخاصة بك كمطوّر: إنشاؤها وتدويرها وإلغاؤها والاطلاع على استخدامها',
      en: 'Manage your developer API keys: create, rotate and revoke them, and see their use',
    },
    openapi: 'Manage the user\'s own API keys (DeveloperService); the user also needs the developer role.',
  },
} as const satisfies Record<Scope, ScopeTexts>;

/** The OpenAPI document's scopes of the OAuth flow. */
export const openApiScopes = (): Record<Scope, string> =>
  Object.fromEntries(Object.entries(SCOPES).map(([scope, texts]) => [scope, texts.openapi])) as Record<Scope, string>;
