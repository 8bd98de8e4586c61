import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnSync } from 'node:child_process';
import { DatabaseSync } from 'node:sqlite';
import { writeFileSync } from 'node:fs';
import { createUsersService, prepareDatabase, openStorage } from '@maqam/server';
import { fixtureRecords, writeNdjson } from '../../server/test/fixtures.ts';
import { dumpTable, runCli, runCliJson } from './run-cli.ts';
import { ffmpegAvailable } from '../../server/test/system-tools.ts';

let dir: string;
let env: Record<string, string>;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'maqam-accounts-'));
  env = { DATABASE_URL: `sqlite:${join(dir, 'accounts.db')}`, LOG_LEVEL: 'silent' };
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('maqam users create', () => {
  it('creates a user from --password and prints { id, username }', async () => {
    expect(await runCliJson(env, ['users', 'create', '--username', 'layla', '--password', 'correct horse'])).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      username: 'layla',
    });
  });

  it('reads the password from stdin, without its trailing newline', async () => {
    await runCliJson(env, ['users', 'create', '--username', 'سلمى', '--password-stdin'], 'كلمة سر طويلة\n');
    const storage = openStorage(env.DATABASE_URL!);
    try {
      await prepareDatabase(storage);
      const users = createUsersService(storage.db);
      expect(await users.authenticate('سلمى', 'كلمة سر طويلة')).toMatchObject({ username: 'سلمى' });
      expect(await users.authenticate('سلمى', 'كلمة سر طويلة\n')).toBeNull();
      expect(await users.authenticate('LAYLA', 'correct horse')).toMatchObject({ username: 'layla' });
      expect(await users.authenticate('layla', 'wrong horse')).toBeNull();
      expect(await users.authenticate('nobody', 'correct horse')).toBeNull();
    } finally {
      await storage.close();
    }
  });

  it('refuses a taken username (whatever its case), a short password and bad usage', async () => {
    const taken = await runCli(env, ['users', 'create', '--username', 'Layla', '--password', 'another one']);
    expect(taken.code).toBe(1);
    expect(taken.stderr).toContain('the username "Layla" is taken');
    expect((await runCli(env, ['users', 'create', '--username', 'omar', '--password', 'short'])).stderr).toContain('8 to 1024 characters');
    expect((await runCli(env, ['users', 'create', '--username', 'a b', '--password', 'long enough'])).code).toBe(1);
    expect((await runCli(env, ['users', 'create', '--username', 'omar'])).code).toBe(2);
    expect((await runCli(env, ['users', 'create', '--username', 'omar', '--password', 'x'.repeat(9), '--password-stdin'])).code).toBe(2);
  });

  it('stores only scrypt hashes, never the password', async () => {
    const rows = dumpTable(join(dir, 'accounts.db'), 'users');
    expect(rows).toContain('scrypt$32768$8$1$');
    expect(rows).not.toContain('correct horse');
    expect(rows).not.toContain('كلمة سر طويلة');
  });
});

describe('maqam clients', () => {
  it('creates a public client with exact redirect URIs and scopes', async () => {
    const created = await runCliJson(env, [
      'clients', 'create', '--name', 'Maqam Web', '--redirect-uri', 'https://app.example/callback',
      '--redirect-uri', 'http://127.0.0.1:5173/callback', '--redirect-uri', 'com.example.maqam:/oauth', '--scopes', 'read stream',
    ]);
    expect(created).toEqual({
      clientId: expect.stringMatching(/^mc_[0-9a-f]{32}$/),
      name: 'Maqam Web',
      redirectUris: ['https://app.example/callback', 'http://127.0.0.1:5173/callback', 'com.example.maqam:/oauth'],
      scopes: ['read', 'stream'],
    });
    const listed = await runCliJson(env, ['clients', 'list']);
    expect(listed).toContainEqual(created);
  });

  it('gives a client the read scope when none is named', async () => {
    expect((await runCliJson(env, ['clients', 'create', '--name', 'Reader', '--redirect-uri', 'https://r.example/cb'])).scopes).toEqual(['read']);
  });

  it.each([
    [['--redirect-uri', 'https://a.example/cb#frag'], 'must not have a fragment'],
    [['--redirect-uri', 'http://a.example/cb'], 'http on a loopback address'],
    [['--redirect-uri', 'not a uri'], 'is not an absolute URI'],
    [['--redirect-uri', 'javascript:alert(1)'], 'private-use scheme'],
    [[], 'at least one redirect URI'],
    [['--redirect-uri', 'https://a.example/cb', '--scopes', 'read admin'], 'unknown scope(s) admin'],
  ])('refuses %j', async (extra, message) => {
    const result = await runCli(env, ['clients', 'create', '--name', 'Bad', ...extra]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
  });
});

describe.skipIf(!ffmpegAvailable('maqam media add'))('maqam media add', () => {
  it('packages an audio file as HLS at every quality', async () => {
    await runCliJson(env, ['import', writeNdjson(dir, 'catalog.ndjson', fixtureRecords())]);
    const wav = join(dir, 'tone.wav');
    spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=3', wav]);
    const mediaEnv = { ...env, MAQAM_MEDIA_DIR: join(dir, 'media') };
    expect(await runCliJson(mediaEnv, ['media', 'add', 'song-ar', wav])).toEqual({
      songId: 'song-ar',
      qualities: [
        { label: 'AUDIO_QUALITY_LOW', bitrateKbps: 64, codec: 'aac' },
        { label: 'AUDIO_QUALITY_STANDARD', bitrateKbps: 128, codec: 'aac' },
        { label: 'AUDIO_QUALITY_HIGH', bitrateKbps: 256, codec: 'aac' },
        { label: 'AUDIO_QUALITY_LOSSLESS', bitrateKbps: 1411, codec: 'flac' },
      ],
    });
  });

  it('packages no tier above its source: a 32 kbps MP3 gives LOW only, and replaces the better tiers of an earlier source', async () => {
    const mp3 = join(dir, 'tone-32k.mp3');
    const made = spawnSync('ffmpeg', ['-hide_banner', '-loglevel', 'error', '-y', '-f', 'lavfi', '-i', 'sine=frequency=330:duration=3', '-b:a', '32k', mp3]);
    expect(made.status, made.stderr?.toString()).toBe(0);
    const mediaEnv = { ...env, MAQAM_MEDIA_DIR: join(dir, 'media') };
    // song-ar has every tier from the WAV of the test above; this source only earns LOW.
    expect(await runCliJson(mediaEnv, ['media', 'add', 'song-ar', mp3])).toEqual({
      songId: 'song-ar',
      qualities: [{ label: 'AUDIO_QUALITY_LOW', bitrateKbps: 64, codec: 'aac' }],
    });
    const db = new DatabaseSync(join(dir, 'accounts.db'), { readOnly: true });
    try {
      expect(db.prepare("select quality from song_media where song_id = 'song-ar'").all().map((row) => (row as { quality: string }).quality)).toEqual(['AUDIO_QUALITY_LOW']);
    } finally {
      db.close();
    }
  });

  it('refuses an unknown song and a file that is not audio, leaving nothing behind', async () => {
    const wav = join(dir, 'tone.wav');
    const mediaEnv = { ...env, MAQAM_MEDIA_DIR: join(dir, 'media') };
    const unknown = await runCli(mediaEnv, ['media', 'add', 'no-such-song', wav]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('no song with id "no-such-song"');
    const text = join(dir, 'not-audio.txt');
    writeFileSync(text, 'this is not audio');
    const bad = await runCli(mediaEnv, ['media', 'add', 'song-en', text]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('ffmpeg could not read or encode the file');
    expect((await runCli(mediaEnv, ['media', 'add', 'song-en'])).code).toBe(2);
  });
});
