// Table `rate_buckets`: one token bucket per API key, shared by every api
// process and kept across restarts (docs/api.md#limits). Written by
// PgRequestAdmission.
import { EntitySchema } from '@mikro-orm/core';

export interface RateBucket {
  keyId: string;
  tokens: number;
  refilledAt: Date;
  /** Whether the last request taken through the bucket was let in. */
  allowed: boolean;
}

export const RateBucketEntity = new EntitySchema<RateBucket>({
  name: 'RateBucket',
  tableName: 'rate_buckets',
  properties: {
    keyId: { type: 'text', primary: true },
    tokens: { type: 'double' },
    refilledAt: { type: 'Date', columnType: 'timestamptz' },
    allowed: { type: 'boolean' },
  },
});
