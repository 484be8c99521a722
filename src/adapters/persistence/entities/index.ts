// Every MikroORM entity schema of the service, for the ORM configuration.
import { ApiKeyEntity } from './api-key-entity.js';
import { WorkspaceEntity } from './workspace-entity.js';

export const ENTITIES = [WorkspaceEntity, ApiKeyEntity];
export { ApiKeyEntity, WorkspaceEntity };
