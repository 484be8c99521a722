// GET /v2/balances (scope wallets:read, docs/api.md#balances): available and
// locked per asset the workspace ever held on the key's networks, straight
// from the ledger.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Balance } from '../../domain/ledger/journal.js';
import { networksOfSide, type Asset, type Network } from '../../domain/money/networks.js';
import type { UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class GetBalances {
  constructor(@inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork) {}

  execute(principal: Principal, filter: { network?: Network; asset?: Asset }): Promise<Balance[]> {
    requireScope(principal, 'wallets:read');
    // One statement: no transaction needed.
    return this.uow.read((tx) => tx.ledger.balances(principal.workspaceId, networksOfSide(principal.side), filter));
  }
}
