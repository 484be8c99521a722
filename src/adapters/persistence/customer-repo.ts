// CustomerRepo over MikroORM, bound to the entity manager of one transaction.
import { LockMode } from '@mikro-orm/core';
import type { EntityManager } from '@mikro-orm/postgresql';
import type { Customer, CustomerFilter, CustomerPatch } from '../../domain/customers/customer.js';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { CustomerRepo } from '../../domain/ports.js';
import { CustomerEntity } from './entities/index.js';
import { conditions, countOf, countRows, findPage } from './find-page.js';
import { executeInline } from './sql.js';

export class MikroCustomerRepo implements CustomerRepo {
  constructor(private readonly em: EntityManager) {}

  async add(customer: Customer): Promise<boolean> {
    // on conflict do nothing: a taken external_ref is an answer, not an
    // error, and must not abort the surrounding transaction.
    const rows = await executeInline<{ id: string }>(
      this.em,
      `insert into customers (id, workspace_id, side, external_ref, label, metadata, status, created_at, updated_at)
       values (?, ?, ?, ?, ?, ?, ?, ?, ?)
       on conflict on constraint customers_external_ref_unique do nothing returning id`,
      [
        customer.id,
        customer.workspaceId,
        customer.side,
        customer.externalRef,
        customer.label,
        customer.metadata === null ? null : JSON.stringify(customer.metadata),
        customer.status,
        customer.createdAt,
        customer.updatedAt,
      ],
      this.em.getTransactionContext(),
    );
    return rows.length === 1;
  }

  get(workspaceId: string, side: NetworkSide, id: string): Promise<Customer | null> {
    return this.em.findOne(CustomerEntity, { id, workspaceId, side });
  }

  async list(workspaceId: string, side: NetworkSide, filter: CustomerFilter, page: PageRequest): Promise<Page<Customer>> {
    const q = { table: 'customers', orderBy: 'created_at', ...conditions({ workspace_id: workspaceId, side }, { status: filter.status, external_ref: filter.externalRef }) };
    // A reference names at most one customer (unique per workspace and side): count it on its own index.
    const count = () => (filter.externalRef !== undefined ? countRows(this.em, q.table, q.where, q.params) : countOf(this.em, 'customers', workspaceId, { networks: [side], status: filter.status }));
    return findPage(this.em, CustomerEntity, q, count, page);
  }

  async update(workspaceId: string, side: NetworkSide, id: string, patch: CustomerPatch, at: Date): Promise<Customer | null> {
    const customer = await this.em.findOne(CustomerEntity, { id, workspaceId, side }, { lockMode: LockMode.PESSIMISTIC_WRITE });
    if (!customer) return null;
    if (patch.label !== undefined) customer.label = patch.label;
    if (patch.metadata !== undefined) customer.metadata = patch.metadata;
    if (patch.status !== undefined) customer.status = patch.status;
    // An empty patch changes nothing, updated_at included.
    if (Object.values(patch).some((v) => v !== undefined)) customer.updatedAt = at;
    await this.em.flush();
    return customer;
  }
}
