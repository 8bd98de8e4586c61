import { createHash } from 'node:crypto';
import { PAGE_TEXTS } from '../errors.ts';
import { SCOPES } from './scopes.ts';

type PageText = { readonly ar: string; readonly en: string };

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
export const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => ESCAPES[c]!);

// One stylesheet, inline, allowed by its hash in the CSP: the page loads nothing else.
const STYLE = `
*{box-sizing:border-box}
body{margin:0;font:17px/1.6 system-ui,"Noto Naskh Arabic","Segoe UI",Tahoma,sans-serif;background:#f4f1ea;color:#1d1b16}
main{max-width:26rem;margin:3rem auto;padding:2rem;background:#fff;border-radius:12px;box-shadow:0 1px 4px #0002}
h1{font-size:1.5rem;margin:0 0 .25rem}
.en{direction:ltr;text-align:left;color:#4a463d;font-size:.95rem}
label{display:block;margin-top:1rem;font-weight:600}
input[type=text],input[type=password]{width:100%;padding:.6rem;margin-top:.25rem;font:inherit;border:2px solid #6b6658;border-radius:8px}
input:focus,button:focus{outline:3px solid #0b5cad;outline-offset:2px}
.alert{margin-top:1rem;padding:.75rem;border-radius:8px;background:#fde8e8;color:#7a1010;border:1px solid #7a1010}
.scopes{padding-inline-start:1.25rem}
.scopes .en{display:block}
.actions{display:flex;gap:.75rem;margin-top:1.5rem}
button{flex:1;padding:.7rem;font:inherit;font-weight:600;border-radius:8px;border:2px solid #0b5cad;cursor:pointer}
.allow{background:#0b5cad;color:#fff}
.deny{background:#fff;color:#0b5cad}
`;
const STYLE_HASH = createHash('sha256').update(STYLE).digest('base64');

/** Headers of every page of the sign-in flow: no framing, nothing loaded from anywhere, never cached. */
export const PAGE_HEADERS = {
  'content-type': 'text/html; charset=utf-8',
  'x-frame-options': 'DENY',
  'content-security-policy': `default-src 'none'; style-src 'sha256-${STYLE_HASH}'; frame-ancestors 'none'; base-uri 'none'`,
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
} as const;

const SCOPE_TEXT: Readonly<Record<string, PageText>> = Object.fromEntries(Object.entries(SCOPES).map(([scope, texts]) => [scope, texts.consent]));

/** A text of the page in both languages: Arabic, then English beside it (`tag`'s element, marked as English). */
function both(text: PageText, tag: 'span' | 'p' = 'span'): string {
  return `${escapeHtml(text.ar)} <${tag} class="en" lang="en" dir="ltr">${escapeHtml(text.en)}</${tag}>`;
}

function layout(title: PageText, body: string): string {
  const titleAr = title.ar;
  const titleEn = title.en;
  return `<!doctype html>
<html lang="ar" dir="rtl">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(titleAr)} · ${escapeHtml(titleEn)}</title><style>${STYLE}</style></head>
<body><main>
<h1>${escapeHtml(titleAr)}</h1>
<p class="en" lang="en" dir="ltr">${escapeHtml(titleEn)}</p>
${body}
</main></body></html>`;
}

export interface SignInPage {
  clientName: string;
  scopes: readonly string[];
  /** Every hidden input: the whole flow state and the CSRF token. */
  hidden: Readonly<Record<string, string>>;
  username?: string;
  error?: PageText;
}

/** The bilingual sign-in and consent form (Arabic first, right to left), usable without JavaScript. */
export function renderSignInPage(page: SignInPage): string {
  const hidden = Object.entries(page.hidden)
    .map(([name, value]) => `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`)
    .join('\n');
  const scopes = page.scopes
    .map((s) => `<li>${escapeHtml(SCOPE_TEXT[s]?.ar ?? s)} <span class="en" lang="en" dir="ltr">${escapeHtml(SCOPE_TEXT[s]?.en ?? s)}</span></li>`)
    .join('');
  const alert = page.error
    ? `<div class="alert" role="alert"><p>${escapeHtml(page.error.ar)}</p><p class="en" lang="en" dir="ltr">${escapeHtml(page.error.en)}</p></div>`
    : '';
  return layout(
    PAGE_TEXTS.signInTitle,
    `<p><bdi>${escapeHtml(page.clientName)}</bdi> ${escapeHtml(PAGE_TEXTS.asksPermission.ar)}</p>
<p class="en" lang="en" dir="ltr"><bdi>${escapeHtml(page.clientName)}</bdi> ${escapeHtml(PAGE_TEXTS.asksPermission.en)}</p>
<ul class="scopes">${scopes}</ul>
${alert}
<form method="post" action="/v1/auth/authorize">
${hidden}
<label for="username">${both(PAGE_TEXTS.username)}</label>
<input type="text" id="username" name="username" autocomplete="username" required value="${escapeHtml(page.username ?? '')}"${page.error ? '' : ' autofocus'}>
<label for="password">${both(PAGE_TEXTS.password)}</label>
<input type="password" id="password" name="password" autocomplete="current-password" required${page.error ? ' autofocus' : ''}>
<div class="actions">
<button class="allow" type="submit" name="decision" value="allow">${escapeHtml(PAGE_TEXTS.allow.ar)} · <span lang="en">${escapeHtml(PAGE_TEXTS.allow.en)}</span></button>
<button class="deny" type="submit" name="decision" value="deny" formnovalidate>${escapeHtml(PAGE_TEXTS.deny.ar)} · <span lang="en">${escapeHtml(PAGE_TEXTS.deny.en)}</span></button>
</div>
</form>`,
  );
}

/** The page for a request that cannot be redirected back (unknown client, unregistered redirect URI). */
export function renderErrorPage(problem: PageText): string {
  return layout(
    PAGE_TEXTS.cannotContinueTitle,
    `<div class="alert" role="alert"><p>${escapeHtml(problem.ar)}</p><p class="en" lang="en" dir="ltr">${escapeHtml(problem.en)}</p></div>
<p>${escapeHtml(PAGE_TEXTS.startAgain.ar)}</p><p class="en" lang="en" dir="ltr">${escapeHtml(PAGE_TEXTS.startAgain.en)}</p>`,
  );
}
