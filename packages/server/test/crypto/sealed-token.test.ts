import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { createTokenSealer } from '../../src/crypto/sealed-token.ts';

describe('sealed tokens', () => {
  const sealer = createTokenSealer(randomBytes(32));

  it('opens what it sealed, and seals the same value differently each time', () => {
    const value = { a: 'artist-ار', s: 0.5, list: [1, 'x'] };
    const one = sealer.seal(value);
    expect(sealer.open(one)).toEqual(value);
    expect(sealer.seal(value)).not.toBe(one);
    expect(one).toMatch(/^[A-Za-z0-9_-]+$/);
  });

  it('says nothing of what it holds', () => {
    const token = sealer.seal(['user-4f1c9a', 'song-1']);
    expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain('user-4f1c9a');
  });

  it('refuses every other spelling, every edit, other keys and garbage', () => {
    const token = sealer.seal({ n: 1 }); // 12 + 7 + 16 = 35 bytes: the last character has unused low bits
    const bytes = Buffer.from(token, 'base64url');
    const respelled = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_']
      .map((c) => token.slice(0, -1) + c)
      .filter((t) => t !== token && Buffer.from(t, 'base64url').equals(bytes));
    expect(respelled.length).toBeGreaterThan(0);
    const flipped = token.slice(0, 20) + (token[20] === 'A' ? 'B' : 'A') + token.slice(21);
    for (const bad of [...respelled, `${token}=`, `${token}.x`, ` ${token}`, flipped, token.slice(0, -2), '', 'garbage', 'A'.repeat(5000)]) {
      expect(sealer.open(bad), bad).toBeNull();
    }
    expect(createTokenSealer(randomBytes(32)).open(token)).toBeNull();
  });
});
