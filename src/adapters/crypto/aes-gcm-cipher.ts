// SecretCipher with AES-256-GCM. Ciphertext format `v1.<key id>.<iv>.<tag>.<data>`
// (base64url parts): the key id (first 8 hex chars of the key's SHA-256) lets
// the key rotate: new secrets use the current key, old ones open with the
// previous keys still configured.
import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import type { SecretCipher } from '../../domain/ports.js';

const keyIdOf = (key: Buffer): string => createHash('sha256').update(key).digest('hex').slice(0, 8);

export class AesGcmCipher implements SecretCipher {
  private readonly current: { id: string; key: Buffer };
  private readonly byId = new Map<string, Buffer>();

  constructor(currentKey: Buffer, previousKeys: Buffer[] = []) {
    for (const k of [currentKey, ...previousKeys]) {
      if (k.length !== 32) throw new Error('encryption keys must be 32 bytes');
      this.byId.set(keyIdOf(k), k);
    }
    this.current = { id: keyIdOf(currentKey), key: currentKey };
  }

  encrypt(plaintext: string): string {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current.key, iv);
    cipher.setAAD(Buffer.from(`v1.${this.current.id}`));
    const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const parts = [iv, cipher.getAuthTag(), data].map((b) => b.toString('base64url'));
    return ['v1', this.current.id, ...parts].join('.');
  }

  decrypt(ciphertext: string): string {
    const [version, id, iv, tag, data] = ciphertext.split('.');
    if (version !== 'v1' || !id || iv === undefined || tag === undefined || data === undefined) {
      throw new Error('unrecognised ciphertext format');
    }
    const key = this.byId.get(id);
    if (!key) throw new Error(`no encryption key with id ${id} is configured`);
    const authTag = Buffer.from(tag, 'base64url');
    // A full 16-byte tag only: node would also accept a truncated one (down to 4 bytes).
    if (authTag.length !== 16) throw new Error('unrecognised ciphertext format');
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv, 'base64url'), { authTagLength: 16 });
    decipher.setAAD(Buffer.from(`v1.${id}`));
    decipher.setAuthTag(authTag);
    return Buffer.concat([decipher.update(Buffer.from(data, 'base64url')), decipher.final()]).toString('utf8');
  }
}
