// RandomSource with node:crypto's CSPRNG.
import { randomBytes, randomUUID } from 'node:crypto';
import type { RandomSource } from '../../domain/ports.js';

export class NodeRandom implements RandomSource {
  uuid(): string {
    return randomUUID();
  }

  token(bytes: number): string {
    return randomBytes(bytes).toString('base64url');
  }
}
