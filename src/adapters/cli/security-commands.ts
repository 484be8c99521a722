// ops policy set | show, beneficiary add | remove: the owner's mainnet
// withdrawal security settings (docs/operations.md#withdrawal-security). Each
// change publishes its owner event to the workspace's endpoints on both sides.
import { z } from 'zod';
import { AddBeneficiary, RemoveBeneficiary } from '../../application/security/manage-beneficiaries.js';
import { isPolicyAmount } from '../../domain/security/policy-amount.js';
import type { PublishedOwnerEvent } from '../../application/security/publish-owner-event.js';
import { COOLING_OFF_HOURS_MAX, SetWithdrawalPolicy } from '../../application/security/set-withdrawal-policy.js';
import { ShowWithdrawalPolicy } from '../../application/security/show-withdrawal-policy.js';
import { QUORUM_MAX } from '../../domain/security/withdrawal-policy.js';
import { defineCommand, type OpsCommand } from './command.js';
import { networkFlag } from './network-flag.js';

const amount = z.string().refine(isPolicyAmount, 'a positive decimal with at most 18 places, e.g. 1000 or 2500.5');
const hours = z
  .string()
  .regex(/^\d{1,4}$/, `a whole number of hours from 0 to ${COOLING_OFF_HOURS_MAX}`)
  .transform((s) => Number(s))
  .refine((n) => n <= COOLING_OFF_HOURS_MAX, `a whole number of hours from 0 to ${COOLING_OFF_HOURS_MAX}`);
const quorum = z
  .string()
  .regex(/^\d{1,2}$/, `a whole number of approvers from 1 to ${QUORUM_MAX}`)
  .transform((s) => Number(s))
  .refine((n) => n >= 1 && n <= QUORUM_MAX, `a whole number of approvers from 1 to ${QUORUM_MAX}`);
/** Comma-separated; "" clears the allowlist. An empty item is left for the use case to refuse. */
const addresses = z.string().transform((s) => (s.trim() === '' ? [] : s.split(',').map((a) => a.trim())));
/** The rules apply to mainnet withdrawals only: a bare chain (--chain TRON) is its mainnet here, in every mode. */
const destination = z.object({ workspace: z.uuid(), chain: networkFlag('live'), address: z.string().trim().min(1) });
const destinationFlags = { workspace: { type: 'string' }, chain: { type: 'string' }, address: { type: 'string' } } as const;

const presentEvents = (events: PublishedOwnerEvent[]) => events.map((e) => ({ side: e.side, event_id: e.eventId }));
const iso = (d: Date | null) => d?.toISOString() ?? null;
const pretty = (r: Record<string, unknown>) => JSON.stringify(r, null, 2);

export const SECURITY_COMMANDS: OpsCommand[] = [
  defineCommand({
    path: ['policy', 'set'],
    summary:
      'Set mainnet withdrawal security (--workspace ID and any of --allowlist A,B ("" clears) --cooling-off-hours N --per-tx-limit X --daily-limit X --approval-above X --approval-quorum N)',
    flags: {
      workspace: { type: 'string' },
      allowlist: { type: 'string' },
      'cooling-off-hours': { type: 'string' },
      'per-tx-limit': { type: 'string' },
      'daily-limit': { type: 'string' },
      'approval-above': { type: 'string' },
      'approval-quorum': { type: 'string' },
    },
    input: z.object({
      workspace: z.uuid(),
      allowlist: addresses.optional(),
      'cooling-off-hours': hours.optional(),
      'per-tx-limit': amount.optional(),
      'daily-limit': amount.optional(),
      'approval-above': amount.optional(),
      'approval-quorum': quorum.optional(),
    }),
    async run(ctx, input) {
      const r = await ctx.resolve(SetWithdrawalPolicy).execute({
        workspaceId: input.workspace,
        allowlist: input.allowlist,
        coolingOffHours: input['cooling-off-hours'],
        perTxLimit: input['per-tx-limit'],
        dailyLimit: input['daily-limit'],
        approvalAbove: input['approval-above'],
        approvalQuorum: input['approval-quorum'],
      });
      return {
        workspace_id: r.workspaceId,
        network: 'MAINNET',
        changed: r.changed,
        policy: r.policy,
        changed_at: iso(r.changedAt),
        events: presentEvents(r.events),
      };
    },
    describe: (r) =>
      (r.changed as string[]).length === 0
        ? `nothing changed; no event published:\n${pretty(r)}`
        : `changed ${(r.changed as string[]).join(', ')}; WITHDRAWAL_POLICY_CHANGED published to live and test endpoints:\n${pretty(r)}`,
  }),
  defineCommand({
    path: ['policy', 'show'],
    summary: 'Show the mainnet withdrawal security settings and allowed destinations of a workspace (--workspace ID)',
    flags: { workspace: { type: 'string' } },
    input: z.object({ workspace: z.uuid() }),
    async run(ctx, input) {
      const r = await ctx.resolve(ShowWithdrawalPolicy).execute(input.workspace);
      return {
        workspace_id: r.workspaceId,
        network: 'MAINNET',
        policy: r.policy,
        updated_at: iso(r.updatedAt),
        destinations: r.destinations.map(({ beneficiary: b, coolingOffEndsAt }) => ({
          chain: b.chain,
          address: b.address,
          added_at: b.addedAt.toISOString(),
          cooling_off_ends_at: iso(coolingOffEndsAt),
        })),
      };
    },
  }),
  defineCommand({
    path: ['beneficiary', 'add'],
    summary: 'Add a withdrawal beneficiary on one network (--workspace ID --chain ETH_MAINNET --address A; ETH alone means ETH_MAINNET, where the rules apply)',
    flags: destinationFlags,
    input: destination,
    async run(ctx, input) {
      const r = await ctx.resolve(AddBeneficiary).execute({ workspaceId: input.workspace, chain: input.chain, address: input.address });
      return {
        workspace_id: r.beneficiary.workspaceId,
        chain: r.beneficiary.chain,
        address: r.beneficiary.address,
        added_at: r.beneficiary.addedAt.toISOString(),
        cooling_off_ends_at: iso(r.coolingOffEndsAt),
        already_existed: r.alreadyExisted,
        events: presentEvents(r.events),
      };
    },
    describe: (r) =>
      r.already_existed
        ? `beneficiary already existed; nothing changed, no event published:\n${pretty(r)}`
        : `beneficiary added; BENEFICIARY_ADDED published to live and test endpoints:\n${pretty(r)}`,
  }),
  defineCommand({
    path: ['beneficiary', 'remove'],
    summary: 'Remove a withdrawal beneficiary (--workspace ID --chain ETH_MAINNET --address A)',
    flags: destinationFlags,
    input: destination,
    async run(ctx, input) {
      const r = await ctx.resolve(RemoveBeneficiary).execute({ workspaceId: input.workspace, chain: input.chain, address: input.address });
      return {
        workspace_id: r.beneficiary.workspaceId,
        chain: r.beneficiary.chain,
        address: r.beneficiary.address,
        removed_at: r.removedAt.toISOString(),
        events: presentEvents(r.events),
      };
    },
    describe: (r) => `beneficiary removed; BENEFICIARY_REMOVED published to live and test endpoints:\n${pretty(r)}`,
  }),
];
