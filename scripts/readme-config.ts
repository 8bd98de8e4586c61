// Rewrites the configuration table in README.md from packages/server/src/config.ts.
//   npm run docs:config
import { readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { configTableMarkdown } from '@maqam/server';

const path = resolve(import.meta.dirname, '../README.md');
const readme = readFileSync(path, 'utf8');
const table = /\| Variable \| Default \| Meaning \|\n\|---\|---\|---\|\n(?:\|.*\|\n)*/;
if (!table.test(readme)) throw new Error('README.md has no configuration table to replace');
writeFileSync(path, readme.replace(table, `${configTableMarkdown()}\n`));
console.log('README.md configuration table updated');
