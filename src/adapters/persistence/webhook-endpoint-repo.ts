// WebhookEndpointRepo over MikroORM, bound to the entity manager of one transaction.
import { LockMode, type EntityManager } from '@mikro-orm/postgresql';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.js';
import type { WebhookEndpointRepo } from '../../domain/webhooks/ports.js';
import { WebhookDeliveryEntity, WebhookEndpointEntity } from './entities/index.js';
import { lockUntilCommit } from './advisory-lock.js';
import { conditions, countRows, findPage } from './find-page.js';

export class MikroWebhookEndpointRepo implements WebhookEndpointRepo {
  constructor(private readonly em: EntityManager) {}

  async add(endpoint: WebhookEndpoint): Promise<void> {
    await this.em.persist(this.em.create(WebhookEndpointEntity, endpoint)).flush();
  }

  get(workspaceId: string, side: NetworkSide, id: string): Promise<WebhookEndpoint | null> {
    return this.em.findOne(WebhookEndpointEntity, { id, workspaceId, side });
  }

  getForUpdate(workspaceId: string, side: NetworkSide, id: string): Promise<WebhookEndpoint | null> {
    return this.em.findOne(WebhookEndpointEntity, { id, workspaceId, side }, { lockMode: LockMode.PESSIMISTIC_WRITE });
  }

  list(workspaceId: string, side: NetworkSide, page: PageRequest): Promise<Page<WebhookEndpoint>> {
    // At most MAX_WEBHOOK_ENDPOINTS per workspace and side: an exact count of so few rows stays flat.
    const q = { table: 'webhook_endpoints', orderBy: 'created_at', ...conditions({ workspace_id: workspaceId, side }) };
    return findPage(this.em, WebhookEndpointEntity, q, () => countRows(this.em, q.table, q.where, q.params), page);
  }

  async save(_endpoint: WebhookEndpoint): Promise<void> {
    // The endpoint is the managed entity getForUpdate returned: flushing writes its changes.
    await this.em.flush();
  }

  async delete(id: string): Promise<void> {
    await this.em.nativeDelete(WebhookEndpointEntity, { id });
  }

  async countForUpdate(workspaceId: string, side: NetworkSide): Promise<number> {
    await lockUntilCommit(this.em, `webhooks:${workspaceId}:${side}`);
    return this.em.count(WebhookEndpointEntity, { workspaceId, side });
  }

  async hasPendingDeliveries(endpointId: string): Promise<boolean> {
    return (await this.em.count(WebhookDeliveryEntity, { endpointId, status: 'PENDING' })) > 0;
  }

  findById(id: string): Promise<WebhookEndpoint | null> {
    return this.em.findOne(WebhookEndpointEntity, { id });
  }
}
