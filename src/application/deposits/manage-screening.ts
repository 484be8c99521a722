// The operator's deny list of senders (ops screening deny|allow). The
// command names an address without a chain: a hex address is denied on ETH
// and BSC, a base58 one on TRON, each in its chain's canonical form, which is
// how the scanner compares a deposit's sender at its threshold.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { BASE_CHAINS, type BaseChain } from '../../domain/money/networks.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { TOKENS } from '../tokens.js';

export interface ScreeningChange {
  /** Canonical address per chain it applies to. */
  entries: { chain: BaseChain; address: string }[];
  /** Whether anything changed (already denied or not listed: false). */
  changed: boolean;
}

@injectable()
export class ManageScreening {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
  ) {}

  private entries(address: string): { chain: BaseChain; address: string }[] {
    const entries = BASE_CHAINS.flatMap((chain) => {
      // Case does not matter for a sender on the deny list: hex in any case is taken and checksummed.
      const canonical = this.codec.canonicalize(chain, address.trim());
      return canonical ? [{ chain, address: canonical }] : [];
    });
    if (entries.length === 0) {
      throw new DomainError('VALIDATION_ERROR', 'address: not an address of ETH, BSC (0x + 40 hex) or TRON (base58, T...)', [
        { path: 'address', message: 'not an address of any supported chain' },
      ]);
    }
    return entries;
  }

  deny(address: string): Promise<ScreeningChange> {
    const entries = this.entries(address);
    return this.uow.run(async (tx) => {
      let changed = false;
      for (const e of entries) changed = (await tx.screening.deny(e.chain, e.address, this.clock.now())) || changed;
      return { entries, changed };
    });
  }

  allow(address: string): Promise<ScreeningChange> {
    const entries = this.entries(address);
    return this.uow.run(async (tx) => {
      let changed = false;
      for (const e of entries) changed = (await tx.screening.allow(e.chain, e.address)) || changed;
      return { entries, changed };
    });
  }
}
