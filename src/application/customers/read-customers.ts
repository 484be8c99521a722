// GET /v2/customers and GET /v2/customers/{id} (scope customers:read,
// docs/api.md#customers), scoped to the caller's workspace and network side:
// anything else is not found.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Customer, CustomerFilter } from '../../domain/customers/customer.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ReadCustomers {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  list(principal: Principal, filter: CustomerFilter, page: PageRequest): Promise<Page<Customer>> {
    requireScope(principal, 'customers:read');
    return this.uow.run((tx) => tx.customers.list(principal.workspaceId, principal.side, filter, page));
  }

  async get(principal: Principal, id: string): Promise<Customer> {
    requireScope(principal, 'customers:read');
    const customer = isUuid(id) ? await this.uow.run((tx) => tx.customers.get(principal.workspaceId, principal.side, id)) : null;
    if (!customer) throw new DomainError('NOT_FOUND', 'No such customer');
    return customer;
  }
}
