// Every MikroORM entity schema of the service, for the ORM configuration.
// They describe the tables completely, so `npm run migration:create` diffs cleanly.
import { ApiKeyEntity } from './api-key-entity.js';
import { IdempotencyKeyEntity } from './idempotency-key-entity.js';
import { RateBucketEntity } from './rate-bucket-entity.js';
import { RequestSignatureEntity } from './request-signature-entity.js';
import { WorkspaceEntity } from './workspace-entity.js';

export const ENTITIES = [WorkspaceEntity, ApiKeyEntity, RequestSignatureEntity, IdempotencyKeyEntity, RateBucketEntity];
export { ApiKeyEntity, IdempotencyKeyEntity, RateBucketEntity, RequestSignatureEntity, WorkspaceEntity };
