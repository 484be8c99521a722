// Operator use case: `ops policy set`, the owner's mainnet withdrawal security
// settings (docs/operations.md#withdrawal-security). Settings not given keep
// their value; one given with the value it has is no change. Whatever changed
// is saved, WITHDRAWAL_POLICY_CHANGED published (to both sides) and the change
// recorded in the audit log with its actor (the operator, or a member from the
// dashboard: the same use case whatever the door) in one transaction; when
// nothing changed, nothing is written or published.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import { BASE_CHAINS } from '../../domain/money/networks.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import type { AddressCodec } from '../../domain/custody/ports.js';
import { OPERATOR, type Actor } from '../../domain/members/audit.js';
import { policyView, QUORUM_MAX, type PolicyChange, type WithdrawalPolicy } from '../../domain/security/withdrawal-policy.js';
import type { PolicyView } from '../../domain/webhooks/events.js';
import { TOKENS } from '../tokens.js';
import { inListOrder, loadPolicyForUpdate } from './load-policy.js';
import { policyAmountOf } from '../../domain/security/policy-amount.js';
import { publishOwnerEvent, type PublishedOwnerEvent } from './publish-owner-event.js';

export const COOLING_OFF_HOURS_MAX = 8760;

export interface SetWithdrawalPolicyCommand extends PolicyChange {
  workspaceId: string;
  /** Who changes it (recorded in the audit log): the operator unless a member does, from the dashboard. */
  actor?: Actor;
}

export interface WithdrawalPolicyChange {
  workspaceId: string;
  /** The settings that changed, in the order of the policy's fields; empty when none did. */
  changed: (keyof PolicyView)[];
  /** The policy after the command. */
  policy: PolicyView;
  /** When the change was made; null when nothing changed. */
  changedAt: Date | null;
  /** The WITHDRAWAL_POLICY_CHANGED events recorded, one per side; none when nothing changed. */
  events: PublishedOwnerEvent[];
}

@injectable()
export class SetWithdrawalPolicy {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.AddressCodec) private readonly codec: AddressCodec,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  async execute(cmd: SetWithdrawalPolicyCommand): Promise<WithdrawalPolicyChange> {
    const change = this.checked(cmd);
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const { policy: before, destinations } = await loadPolicyForUpdate(tx, cmd.workspaceId, now);
      const allowlist = destinations.filter((d) => d.chain === null);
      const after: WithdrawalPolicy = {
        ...before,
        coolingOffHours: change.coolingOffHours ?? before.coolingOffHours,
        perTxLimit: change.perTxLimit ?? before.perTxLimit,
        dailyLimit: change.dailyLimit ?? before.dailyLimit,
        approvalAbove: change.approvalAbove ?? before.approvalAbove,
        approvalQuorum: change.approvalQuorum ?? before.approvalQuorum,
        updatedAt: now,
      };
      const allowlistChanged = change.allowlist !== undefined && !sameSet(change.allowlist, allowlist.map((d) => d.address));
      const viewBefore = policyView(before, allowlist);
      const viewAfter = policyView(after, []);
      const changed = (Object.keys(viewBefore) as (keyof PolicyView)[]).filter((name) =>
        name === 'allowlist' ? allowlistChanged : viewBefore[name] !== viewAfter[name],
      );
      if (changed.length === 0) return { workspaceId: cmd.workspaceId, changed, policy: viewBefore, changedAt: null, events: [] };

      if (allowlistChanged) {
        // Kept addresses keep their row, hence their added_at: their cooling-off does not start again.
        const wanted = new Set(change.allowlist);
        for (const d of allowlist) if (!wanted.has(d.address)) await tx.security.removeBeneficiary(d.id);
        const kept = new Set(allowlist.map((d) => d.address));
        for (const address of wanted) {
          if (kept.has(address)) continue;
          await tx.security.addBeneficiary({ id: this.random.uuid(), workspaceId: cmd.workspaceId, chain: null, address, addedAt: now });
        }
      }
      await tx.security.save(after);

      const policy = policyView(after, inListOrder(await tx.security.beneficiaries(cmd.workspaceId)));
      const events = await publishOwnerEvent(tx.events, cmd.workspaceId, 'WITHDRAWAL_POLICY_CHANGED', {
        workspace_id: cmd.workspaceId,
        network: 'MAINNET',
        changed,
        policy,
        changed_at: now.toISOString(),
      });
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId: cmd.workspaceId,
        actor: cmd.actor ?? OPERATOR,
        action: 'policy.set',
        target: null,
        before: viewBefore,
        after: policy,
        at: now,
      });
      return { workspaceId: cmd.workspaceId, changed, policy, changedAt: now, events };
    });
  }

  /** The change with amounts in their canonical spelling and addresses in their normal form; VALIDATION_ERROR otherwise. */
  private checked(cmd: PolicyChange): PolicyChange {
    const given = [cmd.allowlist, cmd.coolingOffHours, cmd.perTxLimit, cmd.dailyLimit, cmd.approvalAbove, cmd.approvalQuorum].filter((v) => v !== undefined);
    if (given.length === 0) {
      throw new DomainError(
        'VALIDATION_ERROR',
        'give at least one setting: allowlist, cooling_off_hours, per_tx_limit, daily_limit, approval_above or approval_quorum',
      );
    }
    const quorum = cmd.approvalQuorum;
    if (quorum !== undefined && !(Number.isInteger(quorum) && quorum >= 1 && quorum <= QUORUM_MAX)) {
      throw new DomainError('VALIDATION_ERROR', `approval_quorum must be a whole number from 1 to ${QUORUM_MAX}, got ${String(quorum)}`);
    }
    const hours = cmd.coolingOffHours;
    if (hours !== undefined && !(Number.isInteger(hours) && hours >= 0 && hours <= COOLING_OFF_HOURS_MAX)) {
      throw new DomainError('VALIDATION_ERROR', `cooling_off_hours must be a whole number from 0 to ${COOLING_OFF_HOURS_MAX}, got ${String(hours)}`);
    }
    return {
      allowlist: cmd.allowlist === undefined ? undefined : [...new Set(cmd.allowlist.map((a) => this.allowlistAddress(a)))],
      coolingOffHours: hours,
      perTxLimit: cmd.perTxLimit === undefined ? undefined : policyAmountOf(cmd.perTxLimit, 'per_tx_limit'),
      dailyLimit: cmd.dailyLimit === undefined ? undefined : policyAmountOf(cmd.dailyLimit, 'daily_limit'),
      approvalAbove: cmd.approvalAbove === undefined ? undefined : policyAmountOf(cmd.approvalAbove, 'approval_above'),
      approvalQuorum: quorum,
    };
  }

  /** An allowlist address is tied to no chain, but must be an address of at least one (in that chain's normal form). */
  private allowlistAddress(address: string): string {
    for (const chain of BASE_CHAINS) {
      const normal = this.codec.normalize(chain, address);
      if (normal !== null) return normal;
    }
    throw new DomainError('VALIDATION_ERROR', `allowlist: "${address}" is not a valid address on any chain`);
  }
}

const sameSet = (a: readonly string[], b: readonly string[]): boolean => {
  const left = new Set(a);
  const right = new Set(b);
  return left.size === right.size && [...left].every((x) => right.has(x));
};
