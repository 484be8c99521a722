// Refills from cold storage (issue 31, ADR 0032): a person with the cold key
// sends funds back to the hot treasury; the chain-worker reads each network's
// chain for transfers from a registered cold address to the treasury, at the
// network's confirmation depth, and books each once as a refill (COLD →
// TREASURY). The treasury is no deposit address: a refill is never a deposit
// and sends no webhook. Withdrawals waiting for funds then go on by
// themselves (they look at the treasury's balance on the node).
import { inject, injectable } from 'tsyringe';
import { monitoredKey, type ChainPort } from '../../domain/chains/chain-port.js';
import { inForce } from '../../domain/custody/treasury-policy.js';
import { refillFromCold } from '../../domain/ledger/entries.js';
import { Amount } from '../../domain/money/amount.js';
import { baseChainOf, type Asset } from '../../domain/money/networks.js';
import type { Clock, NetworkRegistry, RandomSource, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { TOKENS } from '../tokens.js';
import { InternalAddresses } from './internal-addresses.js';

/** Blocks read per step: a long-idle network catches up over several steps. */
const RANGE = 500n;

export interface RefillReport {
  booked: { asset: Asset; amount: bigint; txid: string; from: string }[];
  /** The next block to read. */
  next: bigint | null;
}

@injectable()
export class RecognizeRefills {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(InternalAddresses) private readonly service: InternalAddresses,
    @inject(TOKENS.NetworkRegistry) private readonly networks: NetworkRegistry,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  async step(port: ChainPort): Promise<RefillReport> {
    const network = port.network;
    const chain = baseChainOf(network);
    const now = this.clock.now();
    const policies = (await this.uow.run((tx) => tx.treasury.policies())).map((p) => inForce(p, now)).filter((p) => p.network === network && p.coldAddress !== null);
    if (policies.length === 0) return { booked: [], next: null };
    const cold = new Map(policies.map((p) => [p.asset, this.codec.accountId(chain, p.coldAddress!)]));
    const depth = BigInt((await this.networks.get(network)).requiredConfirmations);
    const head = (await port.head()).number;
    const safe = head - (depth > 0n ? depth - 1n : 0n);
    const stored = await this.uow.run((tx) => tx.treasury.refillCursorForUpdate(network));
    // The first read starts at the safe block of now: refills are read from the time the first policy exists.
    const from = stored ?? safe;
    if (from > safe) return { booked: [], next: from };
    const to = from + RANGE - 1n < safe ? from + RANGE - 1n : safe;
    const treasury = await this.service.treasury(network);
    const key = monitoredKey(chain, treasury);
    const seen = await port.transfers(from, to, (k) => k === key, new Set(cold.keys()));
    const refills = seen.filter((t) => cold.get(t.asset) !== undefined && this.codec.accountId(chain, t.from) === cold.get(t.asset));
    return this.uow.run(async (tx) => {
      // Another chain-worker may have read the range meanwhile: its bookings stand, the references keep them single.
      const current = await tx.treasury.refillCursorForUpdate(network);
      if (current !== stored) return { booked: [], next: current };
      const booked: RefillReport['booked'] = [];
      for (const r of refills) {
        // What the books hold cold comes back; more than that (the cold address's own funds, money sent to it
        // from elsewhere) was never the customers': it reaches the treasury unbooked, as anything from outside.
        const heldCold = -(await tx.ledger.serviceBalance(network, r.asset, 'COLD'));
        const arrived = Amount.fromChainUnits(r.asset, r.amount);
        if (heldCold <= 0n) continue;
        const amount = arrived.units > heldCold ? Amount.ofUnits(r.asset, heldCold) : arrived;
        const entry = refillFromCold({ id: this.random.uuid(), network, at: this.clock.now(), transferKey: `${r.txid}:${r.logIndex ?? 'native'}`, amount });
        if ((await tx.ledger.post(entry)) === 'posted') booked.push({ asset: r.asset, amount: amount.units, txid: r.txid, from: r.from });
      }
      await tx.treasury.setRefillCursor(network, to + 1n, this.clock.now());
      return { booked, next: to + 1n };
    });
  }
}
