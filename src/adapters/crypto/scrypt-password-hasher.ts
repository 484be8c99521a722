// PasswordHasher over Node's scrypt (ADR 0033): N = 2^15, r = 8, p = 1, a
// 64-byte key and a 16-byte salt per password, stored as
// `scrypt$N$r$p$salt$hash` (salt and hash base64url) so the parameters can be
// raised later without breaking stored hashes. Compared in constant time.
import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto';
import type { PasswordHasher } from '../../domain/members/ports.js';

const N = 2 ** 15;
const R = 8;
const P = 1;
const KEY_LENGTH = 64;
/** scrypt needs 128 × N × r bytes; Node's default ceiling (32 MiB) is exactly that, so give it room. */
const maxmem = (n: number, r: number) => 256 * n * r;

const derive = (password: string, salt: Buffer, n: number, r: number, p: number, length: number): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const options: ScryptOptions = { N: n, r, p, maxmem: maxmem(n, r) };
    scrypt(password.normalize('NFKC'), salt, length, options, (err, key) => (err ? reject(err) : resolve(key)));
  });

export class ScryptPasswordHasher implements PasswordHasher {
  async hash(password: string): Promise<string> {
    const salt = randomBytes(16);
    const key = await derive(password, salt, N, R, P, KEY_LENGTH);
    return `scrypt$${N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  async verify(password: string, stored: string): Promise<boolean> {
    const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
    if (!m) return false;
    const [n, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
    if (n > 2 ** 20 || r > 16 || p > 4) return false;
    const expected = Buffer.from(m[5]!, 'base64url');
    const key = await derive(password, Buffer.from(m[4]!, 'base64url'), n, r, p, expected.length);
    return key.length === expected.length && timingSafeEqual(key, expected);
  }

  async waste(password: string): Promise<void> {
    await derive(password, randomBytes(16), N, R, P, KEY_LENGTH);
  }
}
