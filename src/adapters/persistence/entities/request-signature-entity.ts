// Table `request_signatures`: signatures seen inside the replay window, shared
// by every api process (written by PgReplayGuard with one insert).
import { EntitySchema } from '@mikro-orm/core';

export interface RequestSignature {
  keyId: string;
  signature: string;
  expiresAt: Date;
}

export const RequestSignatureEntity = new EntitySchema<RequestSignature>({
  name: 'RequestSignature',
  tableName: 'request_signatures',
  indexes: [{ name: 'request_signatures_expires_idx', properties: ['expiresAt'] }],
  properties: {
    keyId: { type: 'text', primary: true },
    signature: { type: 'text', primary: true },
    expiresAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
