import type { FastifyInstance } from 'fastify';
import swaggerUi from '@fastify/swagger-ui';

/** Maqam's mark: the eight-pointed star of Arabic ornament around a note, in the demo app's green. */
const LOGO = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 64 64" width="40" height="40" role="img" aria-label="Maqam">
<g fill="#0b6e4f"><rect x="14" y="14" width="36" height="36" rx="4"/><rect x="14" y="14" width="36" height="36" rx="4" transform="rotate(45 32 32)"/></g>
<circle cx="32" cy="32" r="13" fill="#fbfaf7"/>
<path d="M35 22v13.5a4.5 4.5 0 1 1-2-3.7V22h6v3.5h-4z" fill="#0b6e4f"/>
</svg>`;

/** The demo app's palette over swagger-ui's defaults; Arabic text in the descriptions gets an Arabic face. */
const THEME_CSS = `
:root { --maqam-accent: #0b6e4f; --maqam-bg: #fbfaf7; --maqam-line: #e2ded5; }
body { background: var(--maqam-bg); }
.swagger-ui, .swagger-ui .info .title, .swagger-ui .opblock-tag { font-family: "Noto Naskh Arabic", "Noto Sans Arabic", system-ui, -apple-system, "Segoe UI", sans-serif; }
.swagger-ui .topbar { background: #ffffff; border-block-end: 1px solid var(--maqam-line); padding: 0.4rem 0; }
.swagger-ui .topbar a { max-inline-size: none; }
.swagger-ui .topbar .download-url-wrapper { display: none; }
.swagger-ui .topbar-wrapper::after { content: "Maqam API · مقام"; color: #1d1b18; font-size: 1.3rem; font-weight: 700; margin-inline-start: 0.6rem; }
.swagger-ui .btn.authorize { color: var(--maqam-accent); border-color: var(--maqam-accent); }
.swagger-ui .btn.authorize svg { fill: var(--maqam-accent); }
.swagger-ui .btn.execute { background: var(--maqam-accent); border-color: var(--maqam-accent); }
.swagger-ui .info a, .swagger-ui a.nostyle { color: var(--maqam-accent); }
.swagger-ui .opblock.opblock-get .opblock-summary-method { background: var(--maqam-accent); }
.swagger-ui .opblock.opblock-get { border-color: var(--maqam-accent); background: #0b6e4f0d; }
`;

/**
 * /docs: the OpenAPI document in swagger-ui, in Maqam's look. Its Authorize
 * button signs in with the authorization-code flow and PKCE (S256), as any
 * public client must, through `clientId` when one is configured.
 */
export async function registerDocsUi(app: FastifyInstance, options: { clientId: string }): Promise<void> {
  // A scope of its own, so its hook runs for /docs only.
  await app.register(async (scope) => docsUi(scope, options));
}

async function docsUi(scope: FastifyInstance, options: { clientId: string }): Promise<void> {
  // The reference is a page of ours: no one may frame it (clickjacking).
  scope.addHook('onSend', (_request, reply, payload, done) => {
    const policy = reply.getHeader('content-security-policy');
    reply.header('x-frame-options', 'DENY').header('content-security-policy', policy ? `${String(policy)}; frame-ancestors 'none'` : "frame-ancestors 'none'");
    done(null, payload);
  });
  const logo = Buffer.from(LOGO);
  await scope.register(swaggerUi, {
    routePrefix: '/docs',
    uiConfig: { deepLinking: true, persistAuthorization: false, displayRequestDuration: true, tryItOutEnabled: false },
    initOAuth: {
      ...(options.clientId !== '' && { clientId: options.clientId }),
      appName: 'Maqam API docs',
      scopes: ['read', 'stream'],
      usePkceWithAuthorizationCodeGrant: true,
    },
    logo: { type: 'image/svg+xml', content: logo, href: '/docs', target: '_self' },
    theme: {
      title: 'Maqam API · مقام',
      css: [{ filename: 'maqam.css', content: THEME_CSS }],
      favicon: [{ filename: 'maqam.svg', rel: 'icon', sizes: 'any', type: 'image/svg+xml', content: logo }],
    },
  });
}
