// `ops commitment create|suspend|resume|end` and `ops fx set|show`
// (docs/operations.md#fee-commitments): commitments are created by the
// operator on signed contracts. A workspace's commitments never overlap in
// time (two floors for the same days would bill them twice).
import { inject, injectable } from 'tsyringe';
import { SETTLEMENT_ASSETS, effectiveStatus, formatFxRate, monthOf, paidOutside, parseFxRate, transition, type Commitment, type SettlementAsset } from '../../domain/commitments/commitment.js';
import { DomainError } from '../../domain/errors.js';
import { Amount } from '../../domain/money/amount.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';
import { adjustmentEventData, commitmentView, type AdjustmentView, type CommitmentView } from './commitment-view.js';

export interface CreateCommitmentCommand {
  workspaceId: string;
  floor: string;
  settlementAsset: SettlementAsset;
  startsAt: Date;
  endsAt: Date | null;
  autoDebit: boolean;
  contractReference: string;
  /** The operator confirms a start in a month already closed (those months are billed by the next run). */
  backdate: boolean;
}

/** The largest monthly floor accepted (USD): a mistyped floor would be billed and debited as is. */
export const MAX_MONTHLY_FLOOR_USD = 1_000_000_000n;

export type CommitmentOpsView = CommitmentView & { workspace_id: string };

const invalid = (field: string, message: string) => new DomainError('VALIDATION_ERROR', `--${field} ${message}`, [{ path: field, message }]);

@injectable()
export class ManageCommitments {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  private view(c: Commitment): CommitmentOpsView {
    return { ...commitmentView(c, effectiveStatus(c, this.clock.now())), workspace_id: c.workspaceId };
  }

  async create(cmd: CreateCommitmentCommand): Promise<CommitmentOpsView> {
    if (!(SETTLEMENT_ASSETS as readonly string[]).includes(cmd.settlementAsset)) throw invalid('settlement-asset', `must be one of ${SETTLEMENT_ASSETS.join(', ')}`);
    const floor = Amount.parse(cmd.floor, 'USDT_ETH', 'floor');
    if (floor.units > MAX_MONTHLY_FLOOR_USD * 1_000_000n) throw invalid('floor', `must be at most ${MAX_MONTHLY_FLOOR_USD} USD a month`);
    if (cmd.endsAt !== null && cmd.endsAt <= cmd.startsAt) throw invalid('ends-at', 'must be after --starts-at');
    if (cmd.startsAt < monthOf(this.clock.now()).start && !cmd.backdate) {
      throw invalid('starts-at', 'is in a month already closed: those months would be billed (and debited) by the next settlement run; give --backdate to confirm');
    }
    return this.uow.run(async (tx) => {
      if (!(await tx.workspaces.get(cmd.workspaceId))) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${cmd.workspaceId}`);
      await tx.commitments.lockWorkspace(cmd.workspaceId);
      const end = cmd.endsAt?.getTime() ?? Number.POSITIVE_INFINITY;
      const overlapping = (await tx.commitments.ofWorkspace(cmd.workspaceId)).find(
        (c) => c.startsAt.getTime() < end && (c.endsAt === null || c.endsAt > cmd.startsAt),
      );
      if (overlapping) {
        throw new DomainError('CONFLICT', `The workspace's commitment ${overlapping.id} (${effectiveStatus(overlapping, this.clock.now())}) covers part of that time: end it first, or start after it`);
      }
      const now = this.clock.now();
      const commitment: Commitment = {
        id: this.random.uuid(),
        workspaceId: cmd.workspaceId,
        monthlyFloor: floor.units,
        settlementAsset: cmd.settlementAsset,
        startsAt: cmd.startsAt,
        endsAt: cmd.endsAt,
        status: 'ACTIVE',
        autoDebit: cmd.autoDebit,
        contractReference: cmd.contractReference,
        pauses: [],
        createdAt: now,
        updatedAt: now,
      };
      await tx.commitments.add(commitment);
      return this.view(commitment);
    });
  }

  /** suspend (ACTIVE → SUSPENDED), resume (SUSPENDED → ACTIVE), end (→ ENDED now); anything else is UNPROCESSABLE. */
  async change(id: string, action: 'suspend' | 'resume' | 'end'): Promise<CommitmentOpsView> {
    return this.uow.run(async (tx) => {
      const c = await tx.commitments.lock(id);
      if (!c) throw new DomainError('NOT_FOUND', `No commitment ${id}`);
      const next = transition(c, action, this.clock.now());
      await tx.commitments.save(next);
      return this.view(next);
    });
  }

  /** The workspace paid an adjustment's outstanding amount outside the platform (manual recovery): SETTLED. */
  async markPaid(adjustmentId: string): Promise<AdjustmentView & { commitment_id: string; workspace_id: string }> {
    return this.uow.run(async (tx) => {
      const a = await tx.commitments.lockAdjustmentById(adjustmentId);
      if (!a) throw new DomainError('NOT_FOUND', `No adjustment ${adjustmentId}`);
      const paid = paidOutside(a, this.clock.now());
      await tx.commitments.saveAdjustment(paid);
      return adjustmentEventData(paid);
    });
  }

  async setFxRate(pair: string, rate: string): Promise<{ pair: 'EURC_USD'; rate: string; set_at: string }> {
    if (pair !== 'EURC_USD') throw new DomainError('VALIDATION_ERROR', 'The only rate is EURC_USD (USD per EURC)', [{ path: 'pair', message: 'must be EURC_USD' }]);
    const ppm = parseFxRate(rate);
    const now = this.clock.now();
    await this.uow.run((tx) => tx.fx.setRate('EURC_USD', ppm, now));
    return { pair: 'EURC_USD', rate: formatFxRate(ppm), set_at: now.toISOString() };
  }

  async showFxRate(): Promise<{ pair: 'EURC_USD'; rate: string | null; set_at: string | null }> {
    const rate = await this.uow.run((tx) => tx.fx.rate('EURC_USD'));
    return { pair: 'EURC_USD', rate: rate ? formatFxRate(rate.ppm) : null, set_at: rate?.setAt.toISOString() ?? null };
  }
}
