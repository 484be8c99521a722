// RequestSigner with node:crypto: HMAC-SHA256 and a constant-time comparison.
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { RequestSigner } from '../../domain/ports.js';

export class HmacSigner implements RequestSigner {
  sign(secret: string, message: string): string {
    return createHmac('sha256', secret).update(message, 'utf8').digest('hex');
  }

  equals(a: string, b: string): boolean {
    const ba = Buffer.from(a, 'utf8');
    const bb = Buffer.from(b, 'utf8');
    return ba.length === bb.length && timingSafeEqual(ba, bb);
  }
}
