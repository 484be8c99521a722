// Operator use cases: `ops beneficiary add|remove`, the owner's per-chain
// withdrawal destinations (docs/operations.md#withdrawal-security). The
// address must be one of the chain's, kept in its normal form. Adding one
// that exists changes nothing; each real change publishes BENEFICIARY_ADDED
// or BENEFICIARY_REMOVED (to both sides) and records its actor in the audit
// log in the same transaction (the CLI and the dashboard call these alike).
import { addressProblem } from '../../domain/chains/address-problem.js';
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { OPERATOR, type Actor } from '../../domain/members/audit.js';
import { baseChainOf, NETWORKS, type Network } from '../../domain/money/networks.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { coolingOffEndsAt, type Beneficiary } from '../../domain/security/withdrawal-policy.js';
import { TOKENS } from '../tokens.js';
import { loadPolicyForUpdate } from './load-policy.js';
import { publishOwnerEvent, type PublishedOwnerEvent } from './publish-owner-event.js';

export interface BeneficiaryCommand {
  workspaceId: string;
  chain: Network;
  address: string;
  /** Who (recorded in the audit log): the operator unless a member does it from the dashboard. */
  actor?: Actor;
}

export interface AddedBeneficiary {
  beneficiary: Beneficiary;
  /** When withdrawals to it may start under the current cooling-off; null without one. */
  coolingOffEndsAt: Date | null;
  /** True when it was there already: nothing was written or published. */
  alreadyExisted: boolean;
  /** The BENEFICIARY_ADDED events recorded, one per side. */
  events: PublishedOwnerEvent[];
}

export interface RemovedBeneficiary {
  beneficiary: Beneficiary;
  removedAt: Date;
  /** The BENEFICIARY_REMOVED events recorded, one per side. */
  events: PublishedOwnerEvent[];
}

/** The address in the chain's normal form, or VALIDATION_ERROR. */
function addressOn(codec: AddressCodec, chain: Network, address: string): string {
  if (!NETWORKS.includes(chain)) throw new DomainError('VALIDATION_ERROR', `unknown chain ${String(chain)}`);
  const normal = codec.normalize(baseChainOf(chain), address);
  if (normal === null) throw new DomainError('VALIDATION_ERROR', `address "${address}" is not a valid ${chain} address: it ${addressProblem(baseChainOf(chain), address).replace(/^is not an? \w+ address /, 'must be ')}`);
  return normal;
}

@injectable()
export class AddBeneficiary {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(cmd: BeneficiaryCommand): Promise<AddedBeneficiary> {
    const address = addressOn(this.codec, cmd.chain, cmd.address);
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const { policy, destinations } = await loadPolicyForUpdate(tx, cmd.workspaceId, now);
      const existing = destinations.find((d) => d.chain === cmd.chain && d.address === address);
      if (existing) return { beneficiary: existing, coolingOffEndsAt: coolingOffEndsAt(policy, existing.addedAt), alreadyExisted: true, events: [] };

      const beneficiary: Beneficiary = { id: this.random.uuid(), workspaceId: cmd.workspaceId, chain: cmd.chain, address, addedAt: now };
      await tx.security.addBeneficiary(beneficiary);
      const endsAt = coolingOffEndsAt(policy, now);
      const events = await publishOwnerEvent(tx.events, cmd.workspaceId, 'BENEFICIARY_ADDED', {
        workspace_id: cmd.workspaceId,
        chain: cmd.chain,
        address,
        added_at: now.toISOString(),
        cooling_off_ends_at: endsAt?.toISOString() ?? null,
      });
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId: cmd.workspaceId,
        actor: cmd.actor ?? OPERATOR,
        action: 'beneficiary.add',
        target: `${cmd.chain} ${address}`,
        before: null,
        after: { chain: cmd.chain, address, added_at: now.toISOString(), cooling_off_ends_at: endsAt?.toISOString() ?? null },
        at: now,
      });
      return { beneficiary, coolingOffEndsAt: endsAt, alreadyExisted: false, events };
    });
  }
}

@injectable()
export class RemoveBeneficiary {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  /** NOT_FOUND when the workspace has no such beneficiary. */
  async execute(cmd: BeneficiaryCommand): Promise<RemovedBeneficiary> {
    const address = addressOn(this.codec, cmd.chain, cmd.address);
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const { destinations } = await loadPolicyForUpdate(tx, cmd.workspaceId, now);
      const existing = destinations.find((d) => d.chain === cmd.chain && d.address === address);
      if (!existing) throw new DomainError('NOT_FOUND', `workspace ${cmd.workspaceId} has no ${cmd.chain} beneficiary ${address}`);

      await tx.security.removeBeneficiary(existing.id);
      const events = await publishOwnerEvent(tx.events, cmd.workspaceId, 'BENEFICIARY_REMOVED', {
        workspace_id: cmd.workspaceId,
        chain: cmd.chain,
        address,
        removed_at: now.toISOString(),
      });
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId: cmd.workspaceId,
        actor: cmd.actor ?? OPERATOR,
        action: 'beneficiary.remove',
        target: `${cmd.chain} ${address}`,
        before: { chain: cmd.chain, address, added_at: existing.addedAt.toISOString() },
        after: null,
        at: now,
      });
      return { beneficiary: existing, removedAt: now, events };
    });
  }
}
