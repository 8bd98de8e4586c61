// The layers of the server and of the SDK, and the packages each workspace declares, checked in CI
// (`npm run lint:layers`, part of `npm test`).
//
//   kernel      errors.ts, principal.ts, schema-validator.ts, config.ts: the domain's shared vocabulary
//   mechanisms  crypto/, text/, locale/, storage/ (and storage/migrations/, frozen), http/
//   features    catalog/ < search/ < import/ < streaming/ < demo/ (it seeds the demo's catalog and music); catalog/ < library/ < playlists/;
//               keys/, oauth/ beside them
//   edge        app.ts, serve.ts, prepare-database.ts, index.ts: where features are composed
//
// Features reach HTTP only from their routes (*.routes.ts); mechanisms never reach features;
// a feature reaches only the features below it, so folders never import each other in circles.
//
// The SDK (packages/sdk/src), checked in the same run:
//
//   shared      request.ts (CallContext, the one Transport function), pages.ts, errors.ts, http.ts, types.ts, auth/
//   resources   catalog.ts, streaming.ts, library.ts, playlists.ts, play-reporter.ts: one file each, over request.ts
//   client      client.ts makes the transport and composes the resources; only the entry points import it
//   entries     index.ts, and node.ts with node/ (`@maqam/sdk/node`, the one place for Node built-ins)
//
// It runs on the platform alone: no package is imported at run time (the contract's types are written out by
// the build), and browsers, Deno and Bun load every module but node/.
//
// Every workspace (its src, test, scripts and bin) imports only the packages its own package.json declares:
// npm hoists every package to the root, so an undeclared import resolves here and fails for whoever installs
// the workspace alone, or breaks when the package that brought it in drops it.
const SRC = '^packages/server/src/';
const SDK = '^packages/sdk/src/';
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
      name: 'routes-never-import-other-routes',
      comment: 'A feature\'s routes import no other feature\'s routes: what routes share (answers, error responses, the edge) lives in http/.',
      severity: 'error',
      from: { path: `${SRC}([^/]+)/[^/]+\\.routes\\.ts$` },
      to: { path: `${SRC}[^/]+/[^/]+\\.routes\\.ts$`, pathNot: `${SRC}$1/` },
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
      to: { path: '^(packages|node_modules/@maqam)/', pathNot: `${SRC}storage/migrations/` },
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
    {
      name: 'sdk-no-circular',
      comment: 'No module of the SDK reaches itself through its imports (client.ts and its resources once did, through the types they shared).',
      severity: 'error',
      from: { path: SDK },
      to: { circular: true },
    },
    {
      name: 'sdk-only-entries-import-the-client',
      comment: 'Resources are written against request.ts and client.ts composes them: a resource that imported the client would close a cycle.',
      severity: 'error',
      from: { path: SDK, pathNot: `${SDK}(index\\.ts$|node\\.ts$|node/)` },
      to: { path: `${SDK}client\\.ts$` },
    },
    {
      name: 'sdk-no-runtime-dependencies',
      comment: 'The SDK imports no package at run time; the contract is imported for its types only (the build writes them out).',
      severity: 'error',
      from: { path: SDK },
      to: { pathNot: SDK, dependencyTypesNot: ['type-only', 'core'] },
    },
    {
      name: 'sdk-node-built-ins-only-in-node',
      comment: 'Browsers, Deno and Bun load the SDK: a Node built-in is imported only by node.ts and node/ (@maqam/sdk/node).',
      severity: 'error',
      from: { path: SDK, pathNot: `${SDK}(node\\.ts$|node/)` },
      to: { dependencyTypes: ['core'] },
    },
    {
      name: 'packages-are-declared',
      comment: 'A workspace imports only the packages its own package.json declares (a workspace may import itself by name).',
      severity: 'error',
      from: { path: '^packages/([^/]+)/' },
      to: { dependencyTypes: ['npm-no-pkg', 'npm-unknown'], pathNot: '^node_modules/@maqam/$1/' },
    },
    {
      name: 'imports-resolve',
      comment: 'Every package imported is there: one missing from node_modules is not installed, or declared nowhere (tsc checks relative imports).',
      severity: 'error',
      from: { path: '^packages/' },
      to: { couldNotResolve: true, pathNot: '^\\.{1,2}/' },
    },
    {
      name: 'runtime-imports-are-dependencies',
      comment: 'What a workspace runs from src is under its dependencies, which install with it; devDependencies are for tests and build scripts. '
        + 'Type-only imports are gone once compiled. The demo app ships as a bundle built beforehand, so it imports only devDependencies.',
      severity: 'error',
      from: { path: '^packages/[^/]+/src/', pathNot: '^packages/demo-app/' },
      to: { dependencyTypes: ['npm-dev'], dependencyTypesNot: ['type-only'] },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^packages/[^/]+/dist/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    // A workspace imported by name resolves to node_modules/@maqam/<name>, not to its folder, so that it is
    // checked against the importer's package.json like any other package.
    preserveSymlinks: true,
    // Resolve packages as Node does for an ES module (their `exports` and its conditions): without it,
    // packages that export only conditionally (typebox) and the workspaces themselves go unresolved.
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'node', 'default', 'types'],
      mainFields: ['module', 'main', 'types'],
      extensions: ['.ts', '.d.ts', '.js', '.mjs', '.cjs', '.json'],
    },
  },
};
