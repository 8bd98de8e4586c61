import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, configTableMarkdown, loadConfig } from '@maqam/server';

describe('configuration', () => {
  it('is documented in the README exactly as config.ts defines it', () => {
    const readme = readFileSync(resolve(import.meta.dirname, '../../../README.md'), 'utf8');
    // On failure: npm run docs:config
    expect(readme).toContain(configTableMarkdown());
  });

  it('has the contract defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      host: '127.0.0.1',
      databaseUrl: 'sqlite:./data/maqam.db',
      publicUrl: 'http://127.0.0.1:8080',
      defaultLocale: 'ar',
      accessTokenTtlSeconds: 3600,
      codeTtlSeconds: 60,
      rateLimitPerMinute: 600,
      streamUrlTtlSeconds: 300,
      streamGraceSeconds: 14_400,
    });
    expect(loadConfig({ HOST: '0.0.0.0', PORT: '9000' }).publicUrl).toBe('http://0.0.0.0:9000');
    expect(loadConfig({ MAQAM_PUBLIC_URL: 'https://api.maqam.example/' }).publicUrl).toBe('https://api.maqam.example');
  });

  it.each([
    ['PORT', '80000'],
    ['PORT', 'abc'],
    ['DATABASE_URL', 'mysql://x'],
    ['MAQAM_SECRET', 'short'],
    ['LOG_LEVEL', 'loud'],
    ['MAQAM_RATE_LIMIT', '-1'],
    ['MAQAM_DEFAULT_LOCALE', 'not a tag'],
    ['MAQAM_STREAM_GRACE', '-1'],
  ])('rejects %s=%s naming the variable', (name, value) => {
    expect(() => loadConfig({ [name]: value })).toThrow(ConfigError);
    expect(() => loadConfig({ [name]: value })).toThrow(name);
  });
});
