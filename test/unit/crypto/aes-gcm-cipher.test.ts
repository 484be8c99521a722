import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { AesGcmCipher } from '../../../src/adapters/crypto/aes-gcm-cipher.js';

describe('AesGcmCipher', () => {
  it('round-trips a secret and never shows the plaintext in the ciphertext', () => {
    const c = new AesGcmCipher(randomBytes(32));
    const sealed = c.encrypt('super-secret-value');
    expect(sealed).not.toContain('super-secret-value');
    expect(sealed.startsWith('v1.')).toBe(true);
    expect(c.decrypt(sealed)).toBe('super-secret-value');
    expect(c.encrypt('same')).not.toBe(c.encrypt('same'));
  });

  it('refuses a tampered ciphertext', () => {
    const c = new AesGcmCipher(randomBytes(32));
    const parts = c.encrypt('value').split('.');
    const data = Buffer.from(parts[4]!, 'base64url');
    data[0] = data[0]! ^ 1;
    parts[4] = data.toString('base64url');
    expect(() => c.decrypt(parts.join('.'))).toThrow();
  });

  it('refuses a truncated authentication tag, which node alone would accept', () => {
    const c = new AesGcmCipher(randomBytes(32));
    const parts = c.encrypt('value').split('.');
    parts[3] = Buffer.from(parts[3]!, 'base64url').subarray(0, 4).toString('base64url');
    expect(() => c.decrypt(parts.join('.'))).toThrow(/unrecognised ciphertext/);
  });

  it('opens secrets sealed with a previous key after rotation, and seals new ones with the current key', () => {
    const oldKey = randomBytes(32);
    const newKey = randomBytes(32);
    const sealedOld = new AesGcmCipher(oldKey).encrypt('kept');
    const rotated = new AesGcmCipher(newKey, [oldKey]);
    expect(rotated.decrypt(sealedOld)).toBe('kept');
    expect(() => new AesGcmCipher(newKey).decrypt(sealedOld)).toThrow(/no encryption key/);
    expect(new AesGcmCipher(newKey).decrypt(rotated.encrypt('fresh'))).toBe('fresh');
  });
});
