// SendDrips on the real database with a stub node (application test; the
// whole path on real chains is test/e2e/sandbox-deposits): a dispenser short
// of the token leaves the drip QUEUED and says so, and the drips behind it of
// that asset wait too; funded, each item becomes one FAUCET transfer from the
// dispenser; the item is SENT once its transfer is broadcast and CONFIRMED
// (the drip COMPLETED) when the transfer is; a failed transfer fails the
// item and the drip; a transfer the token refuses fails the drip at once.
import { describe, expect, it } from 'vitest';
import { SendDrips } from '../../src/application/faucet/send-drips.js';
import { TransferOutcomes } from '../../src/application/transfers/process-transfers.js';
import { TOKENS } from '../../src/application/tokens.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import type { Drip } from '../../src/domain/faucet/faucet.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { TransferRefused, type ChainSender } from '../../src/domain/transfers/ports.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'faucet-sending' });
const uow = () => t.api.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork);

let stock = 0n;
let refuse: string | null = null;
const sender = {
  network: 'ETH_TESTNET',
  tokenBalance: async () => stock,
  nativeBalance: async () => 10n ** 21n,
  feeQuote: async () => ({ maxFeePerGas: 2_000_000_000n, maxPriorityFeePerGas: 1_000_000_000n }),
  gasLimit: async () => {
    if (refuse) throw new TransferRefused('ETH_TESTNET', refuse);
    return 65_000n;
  },
  burnEstimate: async () => null,
} as unknown as ChainSender;

function sending() {
  const container = t.api.infra.container.createChildContainer();
  const outcomes = new TransferOutcomes();
  container.registerInstance(TransferOutcomes, outcomes);
  return { drips: container.resolve(SendDrips), outcomes };
}

async function queue(amount: bigint): Promise<Drip> {
  const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/wallets', { chain: 'ETH', asset: 'USDT_ETH' });
  const drip: Drip = {
    id: crypto.randomUUID(),
    workspaceId: t.ws.workspaceId,
    network: 'ETH_TESTNET',
    walletId: res.body.id,
    address: res.body.address,
    status: 'QUEUED',
    items: [{ asset: 'USDT_ETH', amount, status: 'QUEUED', transferId: null }],
    createdAt: new Date(),
    updatedAt: new Date(),
  };
  await uow().run((tx) => tx.faucet.add(drip));
  return drip;
}
const read = (id: string) => uow().run(async (tx) => (await tx.faucet.lock(id))!);

describe('SendDrips', () => {
  it('waits while the dispenser is short, then sends each item once through the pipeline and follows its transfer', async () => {
    const { drips, outcomes } = sending();
    const first = await queue(100_000_000n);
    const second = await queue(5_000_000n);
    stock = 50_000_000n; // 50 of the 100 the first asks
    const short = await drips.step(sender, { batch: 10 });
    expect(short).toMatchObject({ requested: 0, dispenserShort: { asset: 'USDT_ETH', available: 50_000_000n, needed: 100_000_000n } });
    expect((await read(second.id)).items[0]!.transferId).toBeNull(); // behind the first, in order
    stock = 200_000_000n;
    expect(await drips.step(sender, { batch: 10 })).toMatchObject({ requested: 2, dispenserShort: null });
    expect(await drips.step(sender, { batch: 10 })).toMatchObject({ requested: 0 }); // once only
    const taken = await read(first.id);
    expect(taken).toMatchObject({ status: 'QUEUED', items: [{ status: 'QUEUED', transferId: expect.any(String) }] });
    const transferId = taken.items[0]!.transferId!;
    const transfer = await uow().run(async (tx) => (await tx.transfers.get(transferId))!);
    expect(transfer).toMatchObject({ kind: 'FAUCET', asset: 'USDT_ETH', to: first.address, amount: 100_000_000n, ownerId: first.id, gasLimit: 65_000n, status: 'REQUESTED' });
    expect(transfer.fromPath).toEqual(servicePath('ETH_TESTNET', 'faucet'));
    // Broadcast: the item is SENT and the drip SENDING.
    await uow().run((tx) => tx.transfers.save({ ...transfer, status: 'BROADCAST', broadcastAt: new Date() }));
    await drips.step(sender, { batch: 10 });
    expect(await read(first.id)).toMatchObject({ status: 'SENDING', items: [{ status: 'SENT' }] });
    // Confirmed: the item CONFIRMED and the drip COMPLETED; the second one's transfer failed.
    await uow().run((tx) => outcomes.tell(tx, { ...transfer, status: 'CONFIRMED' }));
    expect(await read(first.id)).toMatchObject({ status: 'COMPLETED', items: [{ status: 'CONFIRMED' }] });
    const secondTransfer = (await read(second.id)).items[0]!.transferId!;
    await uow().run(async (tx) => outcomes.tell(tx, { ...(await tx.transfers.get(secondTransfer))!, status: 'FAILED', failure: 'reverted' }));
    expect(await read(second.id)).toMatchObject({ status: 'FAILED', items: [{ status: 'FAILED' }] });
  });

  it('fails a drip whose transfer the token refuses in the dry run, sending nothing', async () => {
    const { drips } = sending();
    const drip = await queue(1_000_000n);
    refuse = 'execution reverted: blocked';
    try {
      expect(await drips.step(sender, { batch: 10 })).toMatchObject({ requested: 0, refused: 1 });
    } finally {
      refuse = null;
    }
    expect(await read(drip.id)).toMatchObject({ status: 'FAILED', items: [{ status: 'FAILED', transferId: null }] });
  });
});
