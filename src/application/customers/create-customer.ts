// POST /v2/customers (docs/api.md#customers): a customer of the caller's
// workspace and network side; a taken external_ref is 409 CONFLICT.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Customer } from '../../domain/customers/customer.js';
import { DomainError } from '../../domain/errors.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface CreateCustomerCommand {
  externalRef: string;
  label: string | null;
  metadata: Record<string, unknown> | null;
}

@injectable()
export class CreateCustomer {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, cmd: CreateCustomerCommand): Promise<Customer> {
    requireScope(principal, 'customers:write');
    const now = this.clock.now();
    const customer: Customer = {
      id: this.random.uuid(),
      workspaceId: principal.workspaceId,
      side: principal.side,
      externalRef: cmd.externalRef,
      label: cmd.label,
      metadata: cmd.metadata,
      status: 'ACTIVE',
      createdAt: now,
      updatedAt: now,
    };
    const added = await this.uow.run((tx) => tx.customers.add(customer));
    if (!added) throw new DomainError('CONFLICT', 'A customer with this external_ref already exists');
    return customer;
  }
}
