// The owner's mainnet withdrawal security settings against the real database
// (docs/operations.md#withdrawal-security): `policy set` and `beneficiary
// add|remove` store the settings and publish their owner event on both sides,
// each copy delivered to the subscribed active endpoints of its side, in the
// same transaction; unchanged values and refused input write and publish
// nothing. Then the same through the ops CLI, run as a process.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DependencyContainer } from 'tsyringe';
import { beforeAll, describe, expect, it } from 'vitest';
import { EVENT_DATA_SCHEMAS } from '../../src/adapters/webhooks/event-schemas.js';
import { AddBeneficiary, RemoveBeneficiary } from '../../src/application/security/manage-beneficiaries.js';
import { SetWithdrawalPolicy, type SetWithdrawalPolicyCommand } from '../../src/application/security/set-withdrawal-policy.js';
import { ShowWithdrawalPolicy } from '../../src/application/security/show-withdrawal-policy.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import type { Network } from '../../src/domain/money/networks.js';
import type { EventName } from '../../src/domain/webhooks/events.js';
import { FakeClock } from '../support/fakes.js';
import { createWorkspace, uniqueCall, useTestApi } from '../support/harness.js';
import { opsEnv, runEntry } from '../support/processes.js';

// EIP-55 checksummed addresses (the EIP's own examples) and a TRON address.
const EVM_A = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const EVM_B = '0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359';
const EVM_C = '0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB';
const TRON_A = 'TBXSw8fM4jpQkGc6zZjsVABFpVN7UvXPdV';
const NO_WORKSPACE = '00000000-0000-4000-8000-000000000000';
const HOUR = 3_600_000;
const OWNER_EVENTS: EventName[] = ['WITHDRAWAL_POLICY_CHANGED', 'BENEFICIARY_ADDED', 'BENEFICIARY_REMOVED'];
const PUBLIC = 'https://93.184.216.34/hooks/wallet';

const t = useTestApi({ workspace: 'security' });
const clock = new FakeClock(new Date('2026-11-23T10:00:00.000Z'));
let container: DependencyContainer;
beforeAll(() => {
  // The use cases run on the test's clock; everything else is the api's.
  container = t.api.infra.container.createChildContainer();
  container.register(TOKENS.Clock, { useValue: clock });
});

/** A timestamptz column as an ISO string (the driver returns PostgreSQL's own spelling). */
const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') as ${column}`;
const sql = <T extends object>(text: string, params: unknown[] = []) => t.api.infra.orm.em.getConnection().execute<T[]>(text, params);
const setPolicy = (cmd: SetWithdrawalPolicyCommand) => container.resolve(SetWithdrawalPolicy).execute(cmd);
const addBeneficiary = (workspaceId: string, chain: Network, address: string) => container.resolve(AddBeneficiary).execute({ workspaceId, chain, address });
const removeBeneficiary = (workspaceId: string, chain: Network, address: string) => container.resolve(RemoveBeneficiary).execute({ workspaceId, chain, address });

type Key = { keyId: string; secret: string };
async function registerEndpoint(key: Key, events: EventName[], active = true): Promise<string> {
  const created = await uniqueCall(t.api.baseUrl, key, 'POST', '/v2/webhooks', { url: PUBLIC, events });
  expect(created.status).toBe(201);
  if (!active) expect((await uniqueCall(t.api.baseUrl, key, 'PATCH', `/v2/webhooks/${created.body.id}`, { is_active: false })).status).toBe(200);
  return created.body.id as string;
}

interface Owner {
  id: string;
  ws: CreatedWorkspace;
  /** The endpoint subscribed to the owner events, per side. */
  live: string;
  test: string;
}

/** A workspace with a subscribed endpoint on each side, plus endpoints that must get nothing: inactive, or not subscribed. */
async function owner(name: string): Promise<Owner> {
  const ws = await createWorkspace(t.api, name);
  const [live, test] = await Promise.all([registerEndpoint(ws.liveKey, OWNER_EVENTS), registerEndpoint(ws.testKey, OWNER_EVENTS)]);
  await Promise.all([registerEndpoint(ws.testKey, OWNER_EVENTS, false), registerEndpoint(ws.liveKey, ['DEPOSIT_SWEPT'])]);
  return { id: ws.workspaceId, ws, live, test };
}

interface StoredEvent {
  id: string;
  side: 'live' | 'test';
  event: EventName;
  data: Record<string, unknown>;
}

async function eventsOf(workspaceId: string): Promise<StoredEvent[]> {
  const rows = await sql<{ id: string; side: 'live' | 'test'; event: EventName; payload: string }>(
    'select id, side, event, payload from webhook_events where workspace_id = ? order by created_at, side',
    [workspaceId],
  );
  return rows.map((r) => {
    const body = JSON.parse(r.payload) as { event: string; data: Record<string, unknown> };
    expect(body.event).toBe(r.event);
    return { id: r.id, side: r.side, event: r.event, data: body.data };
  });
}

const deliveriesOf = (eventId: string) =>
  sql<{ endpoint_id: string; status: string; event: string }>('select endpoint_id, status, event from webhook_deliveries where event_id = ?', [eventId]);

/**
 * The last published owner event, which must be the pair (live, test) with
 * exactly `data`, valid against its schema, each copy delivered once, PENDING,
 * to the subscribed endpoint of its side and to no other.
 */
async function expectPublishedPair(o: Owner, event: EventName, data: Record<string, unknown>, eventIds?: { side: string; eventId: string }[]) {
  const pair = (await eventsOf(o.id)).slice(-2);
  expect(pair.map((e) => [e.side, e.event])).toEqual([
    ['live', event],
    ['test', event],
  ]);
  for (const e of pair) {
    expect(e.data).toEqual(data);
    expect(EVENT_DATA_SCHEMAS[event].safeParse(e.data).success).toBe(true);
    expect(await deliveriesOf(e.id)).toEqual([{ endpoint_id: e.side === 'live' ? o.live : o.test, status: 'PENDING', event }]);
  }
  if (eventIds) expect(eventIds).toEqual(pair.map((e) => ({ side: e.side, eventId: e.id })));
}

/** Everything the settings of a workspace consist of, and its events: to prove that nothing changed. */
const snapshot = async (workspaceId: string) => ({
  policy: await sql('select * from withdrawal_policies where workspace_id = ?', [workspaceId]),
  destinations: await sql('select * from beneficiaries where workspace_id = ? order by id', [workspaceId]),
  events: await sql('select id from webhook_events where workspace_id = ? order by id', [workspaceId]),
  deliveries: await sql('select d.id from webhook_deliveries d join webhook_events e on e.id = d.event_id where e.workspace_id = ?', [workspaceId]),
});

async function refusal(p: Promise<unknown>): Promise<{ code: string; message: string }> {
  try {
    await p;
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected a refusal');
}

describe('withdrawal policy', () => {
  it('stores every setting and publishes WITHDRAWAL_POLICY_CHANGED on both sides, each to the subscribed endpoint of its side', async () => {
    const o = await owner('policy-all');
    clock.set('2026-11-23T10:00:00.000Z');
    const r = await setPolicy({
      workspaceId: o.id,
      allowlist: [TRON_A, EVM_A, EVM_A],
      coolingOffHours: 48,
      perTxLimit: '1000.50',
      dailyLimit: '05000',
      approvalAbove: '2500.000',
      approvalQuorum: 2,
    });
    const policy = { allowlist: [EVM_A, TRON_A], cooling_off_hours: 48, per_tx_limit: '1000.5', daily_limit: '5000', approval_above: '2500', approval_quorum: 2 };
    const changed = ['allowlist', 'cooling_off_hours', 'per_tx_limit', 'daily_limit', 'approval_above', 'approval_quorum'];
    expect(r).toMatchObject({ workspaceId: o.id, changed, policy, changedAt: clock.now() });

    const [row] = await sql<Record<string, unknown>>('select * from withdrawal_policies where workspace_id = ?', [o.id]);
    expect(row).toMatchObject({ cooling_off_hours: 48, per_tx_limit: '1000.500000000000000000', daily_limit: '5000.000000000000000000', approval_above: '2500.000000000000000000', approval_quorum: 2 });
    const destinations = await sql(`select chain, address, ${iso('added_at')} from beneficiaries where workspace_id = ? order by address`, [o.id]);
    expect(destinations).toEqual([
      { chain: null, address: EVM_A, added_at: '2026-11-23T10:00:00.000Z' },
      { chain: null, address: TRON_A, added_at: '2026-11-23T10:00:00.000Z' },
    ]);
    await expectPublishedPair(o, 'WITHDRAWAL_POLICY_CHANGED', { workspace_id: o.id, network: 'MAINNET', changed, policy, changed_at: '2026-11-23T10:00:00.000Z' }, r.events);
    expect(await eventsOf(o.id)).toHaveLength(2);
  });

  it('publishes nothing and writes nothing when every setting given already has its value, however it is spelled', async () => {
    const o = await owner('policy-same');
    await setPolicy({ workspaceId: o.id, allowlist: [EVM_A, TRON_A], coolingOffHours: 24, perTxLimit: '100', dailyLimit: '1000.25' });
    const before = await snapshot(o.id);
    clock.advance(HOUR);
    const r = await setPolicy({ workspaceId: o.id, allowlist: [TRON_A, EVM_A], coolingOffHours: 24, perTxLimit: '100.000', dailyLimit: '01000.250' });
    expect(r).toEqual({
      workspaceId: o.id,
      changed: [],
      policy: { allowlist: [EVM_A, TRON_A], cooling_off_hours: 24, per_tx_limit: '100', daily_limit: '1000.25', approval_above: null, approval_quorum: 1 },
      changedAt: null,
      events: [],
    });
    expect(await snapshot(o.id)).toEqual(before);
  });

  it('names only the settings that changed, and carries the whole policy', async () => {
    const o = await owner('policy-partial');
    await setPolicy({ workspaceId: o.id, perTxLimit: '100', dailyLimit: '1000' });
    clock.advance(HOUR);
    const r = await setPolicy({ workspaceId: o.id, perTxLimit: '100', dailyLimit: '2000', approvalAbove: '0.000001' });
    expect(r.changed).toEqual(['daily_limit', 'approval_above']);
    const policy = { allowlist: [], cooling_off_hours: null, per_tx_limit: '100', daily_limit: '2000', approval_above: '0.000001', approval_quorum: 1 };
    await expectPublishedPair(o, 'WITHDRAWAL_POLICY_CHANGED', {
      workspace_id: o.id,
      network: 'MAINNET',
      changed: ['daily_limit', 'approval_above'],
      policy,
      changed_at: clock.now().toISOString(),
    });
    expect(await eventsOf(o.id)).toHaveLength(4);
  });

  it('replaces the allowlist: kept addresses keep their added_at (no new cooling-off), removed ones go, new ones start now; "" clears it', async () => {
    const o = await owner('policy-allowlist');
    clock.set('2026-11-23T10:00:00.000Z');
    await setPolicy({ workspaceId: o.id, allowlist: [EVM_A, TRON_A], coolingOffHours: 24 });
    const [tronRow] = await sql<{ id: string }>('select id from beneficiaries where workspace_id = ? and address = ?', [o.id, TRON_A]);
    // A per-chain beneficiary is not part of the allowlist and survives its replacement.
    await addBeneficiary(o.id, 'ETH_MAINNET', EVM_A);

    clock.set('2026-11-24T10:00:00.000Z');
    const r = await setPolicy({ workspaceId: o.id, allowlist: [EVM_B, TRON_A] });
    expect(r.changed).toEqual(['allowlist']);
    expect(r.policy.allowlist).toEqual([TRON_A, EVM_B]); // oldest first
    const rows = await sql<{ id: string; chain: string | null; address: string; added_at: string }>(
      `select id, chain, address, ${iso('added_at')} from beneficiaries where workspace_id = ?`,
      [o.id],
    );
    const listed = rows.map(({ chain, address, added_at }) => ({ chain, address, added_at }));
    expect(listed.sort((a, b) => `${a.added_at}${a.address}`.localeCompare(`${b.added_at}${b.address}`))).toEqual([
      { chain: 'ETH_MAINNET', address: EVM_A, added_at: '2026-11-23T10:00:00.000Z' },
      { chain: null, address: TRON_A, added_at: '2026-11-23T10:00:00.000Z' },
      { chain: null, address: EVM_B, added_at: '2026-11-24T10:00:00.000Z' },
    ]);
    expect(rows.find((row) => row.address === TRON_A)!.id).toBe(tronRow!.id);
    await expectPublishedPair(o, 'WITHDRAWAL_POLICY_CHANGED', {
      workspace_id: o.id,
      network: 'MAINNET',
      changed: ['allowlist'],
      policy: { allowlist: [TRON_A, EVM_B], cooling_off_hours: 24, per_tx_limit: null, daily_limit: null, approval_above: null, approval_quorum: 1 },
      changed_at: '2026-11-24T10:00:00.000Z',
    });
    const shown = await container.resolve(ShowWithdrawalPolicy).execute(o.id);
    expect(shown.destinations.map((d) => [d.beneficiary.chain, d.beneficiary.address, d.coolingOffEndsAt?.toISOString()])).toEqual([
      ['ETH_MAINNET', EVM_A, '2026-11-24T10:00:00.000Z'],
      [null, TRON_A, '2026-11-24T10:00:00.000Z'],
      [null, EVM_B, '2026-11-25T10:00:00.000Z'],
    ]);

    clock.advance(HOUR);
    const cleared = await setPolicy({ workspaceId: o.id, allowlist: [] });
    expect([cleared.changed, cleared.policy.allowlist]).toEqual([['allowlist'], []]);
    expect(await sql('select chain, address from beneficiaries where workspace_id = ?', [o.id])).toEqual([{ chain: 'ETH_MAINNET', address: EVM_A }]);
  });

  it('refuses invalid settings with VALIDATION_ERROR, and an unknown workspace with WORKSPACE_NOT_FOUND, writing and publishing nothing', async () => {
    const o = await owner('policy-invalid');
    await setPolicy({ workspaceId: o.id, allowlist: [EVM_A], perTxLimit: '10' });
    const before = await snapshot(o.id);
    const invalid: Omit<SetWithdrawalPolicyCommand, 'workspaceId'>[] = [
      {},
      { allowlist: ['0xnot-an-address'] },
      { allowlist: [EVM_B.toLowerCase()] }, // no checksum
      { allowlist: [EVM_B, ''] },
      { allowlist: [`${TRON_A.slice(0, -1)}X`] }, // wrong base58check checksum
      { coolingOffHours: 8761 },
      { coolingOffHours: -1 },
      { coolingOffHours: 1.5 },
      { perTxLimit: '0' },
      { perTxLimit: '0.000' },
      { perTxLimit: '-5' },
      { perTxLimit: '1e3' },
      { perTxLimit: '' },
      { dailyLimit: '1.0000000000000000001' }, // 19 places
      { approvalAbove: '1,000' },
      // A valid setting beside an invalid one is not applied either.
      { perTxLimit: '20', allowlist: [EVM_C, 'nope'] },
    ];
    for (const change of invalid) {
      const err = await refusal(setPolicy({ workspaceId: o.id, ...change }));
      expect(err.code, JSON.stringify(change)).toBe('VALIDATION_ERROR');
    }
    expect((await refusal(setPolicy({ workspaceId: NO_WORKSPACE, perTxLimit: '10' }))).code).toBe('WORKSPACE_NOT_FOUND');
    expect(await snapshot(NO_WORKSPACE)).toEqual({ policy: [], destinations: [], events: [], deliveries: [] });
    expect(await snapshot(o.id)).toEqual(before);
  });
});

describe('beneficiaries', () => {
  it('adds a beneficiary in the chain\'s address form and publishes BENEFICIARY_ADDED with the end of its cooling-off on both sides', async () => {
    const o = await owner('beneficiary-add');
    await setPolicy({ workspaceId: o.id, coolingOffHours: 48 });
    clock.set('2026-11-23T12:00:00.000Z');
    const r = await addBeneficiary(o.id, 'ETH_MAINNET', EVM_B);
    expect(r).toMatchObject({ alreadyExisted: false, coolingOffEndsAt: new Date('2026-11-25T12:00:00.000Z') });
    expect(await sql(`select chain, address, ${iso('added_at')} from beneficiaries where workspace_id = ?`, [o.id])).toEqual([
      { chain: 'ETH_MAINNET', address: EVM_B, added_at: '2026-11-23T12:00:00.000Z' },
    ]);
    const data = { workspace_id: o.id, chain: 'ETH_MAINNET', address: EVM_B, added_at: '2026-11-23T12:00:00.000Z', cooling_off_ends_at: '2026-11-25T12:00:00.000Z' };
    await expectPublishedPair(o, 'BENEFICIARY_ADDED', data, r.events);

    // Adding it again changes nothing: same added_at, no event.
    const before = await snapshot(o.id);
    clock.advance(HOUR);
    const again = await addBeneficiary(o.id, 'ETH_MAINNET', EVM_B);
    expect(again).toMatchObject({ alreadyExisted: true, events: [], beneficiary: { addedAt: new Date('2026-11-23T12:00:00.000Z') } });
    expect(await snapshot(o.id)).toEqual(before);

    // A testnet network is a chain like any other; without cooling-off the end is null.
    await setPolicy({ workspaceId: o.id, coolingOffHours: 0 });
    const tron = await addBeneficiary(o.id, 'TRON_TESTNET', TRON_A);
    await expectPublishedPair(o, 'BENEFICIARY_ADDED', {
      workspace_id: o.id,
      chain: 'TRON_TESTNET',
      address: TRON_A,
      added_at: clock.now().toISOString(),
      cooling_off_ends_at: null,
    }, tron.events);
  });

  it('records one beneficiary and one pair of events when the same one is added concurrently', async () => {
    const o = await owner('beneficiary-race');
    const results = await Promise.all(Array.from({ length: 6 }, () => addBeneficiary(o.id, 'BSC_MAINNET', EVM_C)));
    expect(results.filter((r) => !r.alreadyExisted)).toHaveLength(1);
    expect(await sql('select address from beneficiaries where workspace_id = ?', [o.id])).toEqual([{ address: EVM_C }]);
    expect((await eventsOf(o.id)).map((e) => [e.side, e.event])).toEqual([
      ['live', 'BENEFICIARY_ADDED'],
      ['test', 'BENEFICIARY_ADDED'],
    ]);
  });

  it('removes a beneficiary and publishes BENEFICIARY_REMOVED on both sides; removing one that is not there is NOT_FOUND', async () => {
    const o = await owner('beneficiary-remove');
    await setPolicy({ workspaceId: o.id, allowlist: [EVM_A] });
    await addBeneficiary(o.id, 'ETH_MAINNET', EVM_B);
    await addBeneficiary(o.id, 'BSC_MAINNET', EVM_B);
    clock.advance(HOUR);
    const r = await removeBeneficiary(o.id, 'ETH_MAINNET', EVM_B);
    expect(r.removedAt).toEqual(clock.now());
    await expectPublishedPair(o, 'BENEFICIARY_REMOVED', { workspace_id: o.id, chain: 'ETH_MAINNET', address: EVM_B, removed_at: clock.now().toISOString() }, r.events);
    expect(await sql('select chain, address from beneficiaries where workspace_id = ? order by chain', [o.id])).toEqual([
      { chain: 'BSC_MAINNET', address: EVM_B },
      { chain: null, address: EVM_A },
    ]);

    const before = await snapshot(o.id);
    // Gone already; an allowlist address is no per-chain beneficiary; another workspace's is not this one's.
    expect((await refusal(removeBeneficiary(o.id, 'ETH_MAINNET', EVM_B))).code).toBe('NOT_FOUND');
    expect((await refusal(removeBeneficiary(o.id, 'ETH_MAINNET', EVM_A))).code).toBe('NOT_FOUND');
    const other = await createWorkspace(t.api, 'other');
    await addBeneficiary(other.workspaceId, 'TRON_MAINNET', TRON_A);
    expect((await refusal(removeBeneficiary(o.id, 'TRON_MAINNET', TRON_A))).code).toBe('NOT_FOUND');
    expect(await snapshot(o.id)).toEqual(before);
  });

  it('refuses an address that is not one of the chain\'s, an unknown chain, and an unknown workspace, writing and publishing nothing', async () => {
    const o = await owner('beneficiary-invalid');
    const before = await snapshot(o.id);
    for (const [chain, address] of [
      ['ETH_MAINNET', TRON_A],
      ['TRON_MAINNET', EVM_A],
      ['BSC_MAINNET', EVM_A.toLowerCase()],
      ['ETH_MAINNET', ''],
      ['SOL_MAINNET', EVM_A],
    ] as [Network, string][]) {
      expect((await refusal(addBeneficiary(o.id, chain, address))).code, `${chain} ${address}`).toBe('VALIDATION_ERROR');
      expect((await refusal(removeBeneficiary(o.id, chain, address))).code, `${chain} ${address}`).toBe('VALIDATION_ERROR');
    }
    expect((await refusal(addBeneficiary(NO_WORKSPACE, 'ETH_MAINNET', EVM_A))).code).toBe('WORKSPACE_NOT_FOUND');
    expect((await refusal(removeBeneficiary(NO_WORKSPACE, 'ETH_MAINNET', EVM_A))).code).toBe('WORKSPACE_NOT_FOUND');
    expect(await snapshot(o.id)).toEqual(before);
    expect(await snapshot(NO_WORKSPACE)).toEqual({ policy: [], destinations: [], events: [], deliveries: [] });
  });
});

describe('ops policy and beneficiary commands', () => {
  const ops = async (...args: string[]) => {
    const res = await runEntry('src/bootstrap/ops.ts', opsEnv(t.db.url, { DATA_DIR: mkdtempSync(join(tmpdir(), 'wallet-ops-')) }), [...args, '--json']);
    const lines = res.stdout.trim().split('\n');
    expect(lines, res.stderr).toHaveLength(1);
    return { code: res.code, out: JSON.parse(lines[0]!) as Record<string, any> };
  };

  it('sets the policy and adds a beneficiary, each printing one JSON object, and the events reach both sides', async () => {
    const o = await owner('ops');
    const set = await ops('policy', 'set', '--workspace', o.id, '--allowlist', `${EVM_A},${TRON_A}`, '--cooling-off-hours', '24', '--per-tx-limit', '1000.000', '--daily-limit', '5000', '--approval-above', '2500.5', '--approval-quorum', '3');
    expect(set.code).toBe(0);
    const policy = { allowlist: [EVM_A, TRON_A], cooling_off_hours: 24, per_tx_limit: '1000', daily_limit: '5000', approval_above: '2500.5', approval_quorum: 3 };
    expect(set.out).toEqual({
      workspace_id: o.id,
      network: 'MAINNET',
      changed: ['allowlist', 'cooling_off_hours', 'per_tx_limit', 'daily_limit', 'approval_above', 'approval_quorum'],
      policy,
      changed_at: expect.any(String),
      events: [
        { side: 'live', event_id: expect.any(String) },
        { side: 'test', event_id: expect.any(String) },
      ],
    });
    await expectPublishedPair(o, 'WITHDRAWAL_POLICY_CHANGED', { workspace_id: o.id, network: 'MAINNET', changed: set.out.changed, policy, changed_at: set.out.changed_at });

    const [add, unchanged, refused, unknown] = await Promise.all([
      ops('beneficiary', 'add', '--workspace', o.id, '--chain', 'TRON_MAINNET', '--address', TRON_A),
      ops('policy', 'set', '--workspace', o.id, '--per-tx-limit', '1000'),
      ops('policy', 'set', '--workspace', o.id, '--per-tx-limit', '0'),
      ops('beneficiary', 'remove', '--workspace', o.id, '--chain', 'ETH_MAINNET', '--address', EVM_C),
    ]);
    expect(add.code).toBe(0);
    const addedAt = add.out.added_at as string;
    expect(add.out).toEqual({
      workspace_id: o.id,
      chain: 'TRON_MAINNET',
      address: TRON_A,
      added_at: addedAt,
      cooling_off_ends_at: new Date(Date.parse(addedAt) + 24 * HOUR).toISOString(),
      already_existed: false,
      events: [
        { side: 'live', event_id: expect.any(String) },
        { side: 'test', event_id: expect.any(String) },
      ],
    });
    await expectPublishedPair(o, 'BENEFICIARY_ADDED', {
      workspace_id: o.id,
      chain: 'TRON_MAINNET',
      address: TRON_A,
      added_at: addedAt,
      cooling_off_ends_at: add.out.cooling_off_ends_at,
    });
    expect([unchanged.code, unchanged.out.changed, unchanged.out.events, unchanged.out.changed_at]).toEqual([0, [], [], null]);
    expect([refused.code, refused.out.code, refused.out.error]).toEqual([2, 'VALIDATION_ERROR', expect.stringContaining('--per-tx-limit')]);
    expect([unknown.code, unknown.out.code]).toEqual([2, 'NOT_FOUND']);
    expect(await eventsOf(o.id)).toHaveLength(4);

    const [show, again, noSetting] = await Promise.all([
      ops('policy', 'show', '--workspace', o.id),
      ops('beneficiary', 'add', '--workspace', o.id, '--chain', 'TRON_MAINNET', '--address', TRON_A),
      ops('policy', 'set', '--workspace', o.id),
    ]);
    expect(show.out).toMatchObject({ workspace_id: o.id, network: 'MAINNET', policy, updated_at: set.out.changed_at });
    expect(show.out.destinations).toContainEqual({ chain: 'TRON_MAINNET', address: TRON_A, added_at: addedAt, cooling_off_ends_at: add.out.cooling_off_ends_at });
    expect(show.out.destinations).toHaveLength(3);
    expect(again.out).toMatchObject({ already_existed: true, added_at: addedAt, events: [] });
    expect([noSetting.code, noSetting.out.code]).toEqual([2, 'VALIDATION_ERROR']);
    expect(await eventsOf(o.id)).toHaveLength(4);
  }, 90_000); // eight ops processes, four at a time at most: slow to start on a loaded 2-core machine
});
