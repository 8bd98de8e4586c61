// The layers of the server, checked in CI (`npm run lint:layers`, part of `npm test`).
//
//   kernel      errors.ts, principal.ts, schema-validator.ts, config.ts: the domain's shared vocabulary
//   mechanisms  crypto/, text/, locale/, storage/ (and storage/migrations/, frozen), http/
//   features    catalog/ < search/ < import/ < streaming/ < demo/ (it seeds the demo's catalog and music); catalog/ < library/ < playlists/;
//               keys/, oauth/ beside them
//   edge        app.ts, serve.ts, prepare-database.ts, index.ts: where features are composed
//
// Features reach HTTP only from their routes (*.routes.ts); mechanisms never reach features;
// a feature reaches only the features below it, so folders never import each other in circles.
const SRC = '^packages/server/src/';
const FEATURES = '(catalog|search|import|streaming|library|playlists|keys|oauth|demo)';

/** A feature and the features it must not import (those above it, and those beside it). */
const featureOrder = {
  catalog: ['search', 'import', 'streaming', 'library', 'playlists', 'keys', 'oauth', 'demo'],
  search: ['import', 'streaming', 'library', 'playlists', 'keys', 'oauth', 'demo'],
  import: ['streaming', 'library', 'playlists', 'keys', 'oauth', 'demo'],
  streaming: ['library', 'playlists', 'keys', 'oauth', 'demo'],
  library: ['search', 'import', 'streaming', 'playlists', 'keys', 'oauth', 'demo'],
  playlists: ['search', 'import', 'streaming', 'keys', 'oauth', 'demo'],
  keys: ['catalog', 'search', 'import', 'streaming', 'library', 'playlists', 'oauth', 'demo'],
  oauth: ['catalog', 'search', 'import', 'streaming', 'library', 'playlists', 'keys', 'demo'],
  demo: ['library', 'playlists', 'keys', 'oauth'],
};

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'http-only-from-routes',
      comment: 'Feature code other than its routes never imports http/: services and repositories are HTTP-free.',
      severity: 'error',
      from: { path: `${SRC}${FEATURES}/`, pathNot: '\\.routes\\.ts$' },
      to: { path: `${SRC}http/` },
    },
    {
      name: 'mechanisms-never-import-features',
      comment: 'http/, storage/, crypto/, text/ and locale/ serve every feature and know none.',
      severity: 'error',
      from: { path: `${SRC}(http|storage|crypto|text|locale)/` },
      to: { path: `${SRC}${FEATURES}/` },
    },
    {
      name: 'kernel-imports-no-layer',
      comment: 'The shared vocabulary (errors, principal, schema validator, config) imports no feature and no HTTP.',
      severity: 'error',
      from: { path: `${SRC}(errors|principal|schema-validator|config)\\.ts$` },
      to: { path: `${SRC}(${FEATURES.slice(1, -1)}|http|storage)/` },
    },
    {
      name: 'routes-run-no-sql',
      comment: 'Routes own schemas and status codes; SQL lives in repositories (and storage/).',
      severity: 'error',
      from: { path: `${SRC}.+\\.routes\\.ts$|${SRC}app\\.ts$` },
      to: { path: 'node_modules/kysely/' },
    },
    {
      name: 'migrations-are-frozen',
      comment: 'A migration imports nothing of the live code: an old migration must not change when today\'s code does.',
      severity: 'error',
      from: { path: `${SRC}storage/migrations/` },
      to: { path: '^packages/', pathNot: `${SRC}storage/migrations/` },
    },
    ...Object.entries(featureOrder).map(([feature, forbidden]) => ({
      name: `${feature}-layer`,
      comment: `${feature}/ imports only the features below it (catalog < search < import < streaming), so folders never form a cycle.`,
      severity: 'error',
      from: { path: `${SRC}${feature}/` },
      to: { path: `${SRC}(${forbidden.join('|')})/` },
    })),
    {
      name: 'no-circular',
      comment: 'No module reaches itself through its imports.',
      severity: 'error',
      from: { path: SRC },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^packages/[^/]+/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
