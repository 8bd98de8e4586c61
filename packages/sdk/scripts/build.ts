// Builds the publishable @maqam/sdk into packages/sdk/dist:
//   esm/   ES modules (browsers, Node, Deno, Bun) with .d.ts
//   cjs/   CommonJS for require() with its own .d.ts (a package.json marks the folder)
//   package.json with conditional exports, README.md
// The wire types are generated from @maqam/contract, so the package carries
// no dependency on the contract or TypeBox. Run: npm run build -w @maqam/sdk
import { build } from 'esbuild';
import ts from 'typescript';
import { cp, mkdir, readFile, readdir, rm, writeFile } from 'node:fs/promises';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import * as contract from '@maqam/contract';
import { wireTypes } from './wire-types.ts';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const out = resolve(root, process.argv[2] ?? 'dist');
const source = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as { name: string; version: string; description: string; license: string };

const ENTRIES = { index: 'src/index.ts', node: 'src/node.ts' };

await rm(out, { recursive: true, force: true });

// 1. JavaScript: one bundle per entry and format, readable (consumers minify).
for (const format of ['esm', 'cjs'] as const) {
  await build({
    entryPoints: Object.entries(ENTRIES).map(([name, path]) => ({ in: join(root, path), out: name })),
    outdir: join(out, format),
    bundle: true,
    format,
    platform: 'neutral',
    target: 'es2022',
    external: ['node:*'],
    logLevel: 'warning',
  });
}
await writeFile(join(out, 'cjs', 'package.json'), '{ "type": "commonjs" }\n');

// 2. Declarations, with the contract's types written out in place of the import.
const declarations = new Map<string, string>();
const program = ts.createProgram(Object.values(ENTRIES).map((path) => join(root, path)), {
  declaration: true,
  emitDeclarationOnly: true,
  rootDir: join(root, 'src'),
  outDir: '/declarations',
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  target: ts.ScriptTarget.ES2022,
  lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
  types: ['node'],
  strict: true,
  allowImportingTsExtensions: true,
  rewriteRelativeImportExtensions: true,
  skipLibCheck: true,
});
const emitted = program.emit(undefined, (fileName, text) => declarations.set(relative('/declarations', fileName), text));
const problems = ts.getPreEmitDiagnostics(program).concat(emitted.diagnostics);
if (problems.length > 0) {
  throw new Error(ts.formatDiagnostics(problems, { getCanonicalFileName: (f) => f, getCurrentDirectory: () => root, getNewLine: () => '\n' }));
}

// The contract's names the declarations use, imported by name or through a namespace.
const usedWireTypes = new Set<string>();
for (const text of declarations.values()) {
  for (const match of text.matchAll(/import(?: type)? \{([^}]*)\} from ["']@maqam\/contract["']/g)) {
    for (const name of match[1]!.split(',')) if (name.trim()) usedWireTypes.add(name.trim().replace(/^type /, ''));
  }
  for (const match of text.matchAll(/import(?: type)? \* as (\w+) from ["']@maqam\/contract["']/g)) {
    for (const use of text.matchAll(new RegExp(`\\b${match[1]}\\.(\\w+)`, 'g'))) usedWireTypes.add(use[1]!);
  }
}
const unknown = [...usedWireTypes].filter((name) => !(name in contract));
if (unknown.length > 0) throw new Error(`the SDK uses types the contract does not export: ${unknown.join(', ')}`);
const schemas = Object.fromEntries([...usedWireTypes].sort().map((name) => [name, (contract as Record<string, unknown>)[name]]));
const wire = wireTypes(schemas as Parameters<typeof wireTypes>[0]);

for (const format of ['esm', 'cjs']) {
  for (const [file, text] of declarations) {
    const depth = file.split('/').length - 1;
    const contractPath = `${depth === 0 ? './' : '../'.repeat(depth)}wire-types.js`;
    const target = join(out, format, file);
    await mkdir(dirname(target), { recursive: true });
    await writeFile(target, text.replaceAll(/(["'])@maqam\/contract\1/g, `'${contractPath}'`).replaceAll(/(["'])(\.{1,2}\/[^"']*)\.ts\1/g, "'$2.js'"));
  }
  await writeFile(join(out, format, 'wire-types.d.ts'), wire);
}

// 3. The package manifest consumers see.
const exportsOf = (name: string) => ({
  import: { types: `./esm/${name}.d.ts`, default: `./esm/${name}.js` },
  require: { types: `./cjs/${name}.d.ts`, default: `./cjs/${name}.js` },
});
await writeFile(join(out, 'package.json'), `${JSON.stringify({
  name: source.name,
  version: source.version,
  description: source.description,
  license: source.license,
  type: 'module',
  sideEffects: false,
  engines: { node: '>=20' },
  exports: { '.': exportsOf('index'), './node': exportsOf('node'), './package.json': './package.json' },
  main: './cjs/index.js',
  module: './esm/index.js',
  types: './esm/index.d.ts',
}, null, 2)}\n`);
await cp(join(root, 'README.md'), join(out, 'README.md')).catch(() => undefined);

const files = await readdir(out, { recursive: true });
console.log(`@maqam/sdk ${source.version} built into ${relative(process.cwd(), out) || '.'} (${files.length} files)`);
