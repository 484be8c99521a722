// PATCH /v2/customers/{id} (scope customers:write, docs/api.md#customers):
// label, metadata and status (ACTIVE/ARCHIVED). Archiving retires the label
// only: the customer's addresses stay monitored.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Customer, CustomerPatch } from '../../domain/customers/customer.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class UpdateCustomer {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, id: string, patch: CustomerPatch): Promise<Customer> {
    requireScope(principal, 'customers:write');
    const updated = isUuid(id)
      ? await this.uow.run((tx) => tx.customers.update(principal.workspaceId, principal.side, id, patch, this.clock.now()))
      : null;
    if (!updated) throw new DomainError('NOT_FOUND', 'No such customer');
    return updated;
  }
}
