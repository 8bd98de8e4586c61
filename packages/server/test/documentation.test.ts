import { describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { SCOPE_NAMES } from '@maqam/contract';

const ROOT = resolve(import.meta.dirname, '../../..');

/** Every Markdown file the repository holds (tracked by git), with its links. */
function markdownFiles(): string[] {
  return execFileSync('git', ['ls-files', '*.md'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean);
}

function anchorsOf(markdown: string): Set<string> {
  // GitHub's anchors: headings lower-cased, punctuation dropped, spaces as dashes.
  return new Set([...markdown.matchAll(/^#+ (.+)$/gm)].map((m) => m[1]!.toLowerCase().replace(/[^\p{L}\p{N} _-]/gu, '').replace(/ /g, '-')));
}

describe('the documentation', () => {
  it('links only inside the repository, to files and headings that exist', () => {
    const broken: string[] = [];
    for (const file of markdownFiles()) {
      const text = readFileSync(resolve(ROOT, file), 'utf8').replace(/```[\s\S]*?```/g, '');
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        const [path, anchor] = target!.split('#') as [string, string | undefined];
        if (/^[a-z]+:/i.test(path)) {
          broken.push(`${file}: ${target} leaves the repository`);
          continue;
        }
        const destination = path === '' ? resolve(ROOT, file) : resolve(ROOT, dirname(file), path);
        if (relative(ROOT, destination).startsWith('..')) broken.push(`${file}: ${target} leaves the repository`);
        else if (!existsSync(destination)) broken.push(`${file}: ${target} does not exist`);
        else if (anchor && destination.endsWith('.md') && !anchorsOf(readFileSync(destination, 'utf8')).has(anchor)) broken.push(`${file}: #${anchor} is no heading`);
      }
    }
    expect(broken).toEqual([]);
  });

  it('has an API reference and a license', () => {
    expect(existsSync(resolve(ROOT, 'docs/api.md'))).toBe(true);
    expect(readFileSync(resolve(ROOT, 'LICENSE'), 'utf8')).toMatch(/^MIT License/);
  });

  // Regression (issue 51, item 7): the contents lacked the library and playlists, and the scopes lacked `write`.
  it('lists every section of the API reference in its contents, and every scope with what it grants', () => {
    const api = readFileSync(resolve(ROOT, 'docs/api.md'), 'utf8');
    const sections = [...api.matchAll(/^## (.+)$/gm)].map((m) => m[1]!);
    const contents = [...api.matchAll(/^- \[(.+)\]\(#[^)]+\)$/gm)].map((m) => m[1]!);
    expect(contents).toEqual(sections);
    const scopes = /^Scopes[^\n]*\n(?:[^\n]*\n)*?\n((?:- `\w+`: [\s\S]*?\n)+)\n/m.exec(api)?.[1] ?? '';
    expect([...scopes.matchAll(/^- `(\w+)`: /gm)].map((m) => m[1])).toEqual([...SCOPE_NAMES]);
  });
});
