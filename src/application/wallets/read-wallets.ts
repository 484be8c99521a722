// GET /v2/wallets and GET /v2/wallets/{id} (scope wallets:read,
// docs/api.md#wallets), on the caller's networks only. The detail opens the
// encrypted external_ref; lists never do.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import { isUuid } from '../../domain/ids.js';
import { networksOfSide } from '../../domain/money/networks.js';
import type { Page, PageRequest } from '../../domain/pagination.js';
import type { SecretCipher, UnitOfWork } from '../../domain/ports.js';
import type { Wallet, WalletFilter } from '../../domain/wallets/wallet.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class ReadWallets {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
  ) {}

  list(principal: Principal, filter: WalletFilter, page: PageRequest): Promise<Page<Wallet>> {
    requireScope(principal, 'wallets:read');
    return this.uow.run((tx) => tx.wallets.list(principal.workspaceId, networksOfSide(principal.side), filter, page));
  }

  async get(principal: Principal, id: string): Promise<{ wallet: Wallet; externalRef: string | null }> {
    requireScope(principal, 'wallets:read');
    const wallet = isUuid(id)
      ? await this.uow.run((tx) => tx.wallets.get(principal.workspaceId, networksOfSide(principal.side), id))
      : null;
    if (!wallet) throw new DomainError('NOT_FOUND', 'No such wallet');
    const externalRef = wallet.externalRefCiphertext === null ? null : this.cipher.decrypt(wallet.externalRefCiphertext);
    return { wallet, externalRef };
  }
}
