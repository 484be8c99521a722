// The owner's dashboard in a real browser (issue 32's acceptance): Debian's
// Chromium driven by playwright-core. The operator's `ops owner invite` →
// the link → password and TOTP → sign in → the 24-hour limit changed with the
// second factor → a local webhook receiver gets WITHDRAWAL_POLICY_CHANGED; an
// APPROVER invited from the dashboard; a quorum of 2; a mainnet withdrawal
// over the threshold (a local node with chain id 1 configured as
// ETH_MAINNET, as the mainnet withdrawals test does) waits on the approvals
// page, is not paid after one approval and is paid after the second; the
// audit log shows each action with its member and address. Every page is
// visited with every request off this machine refused (the network cut),
// from the keyboard and at a phone's width, and photographed: the
// screenshots go to test-results/screenshots/ (git-ignored, CI artifacts).
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rpc } from '../../src/adapters/sandbox/anvil.js';
import { LocalHdSigner } from '../../src/adapters/signer/hd-signer.js';
import { startDispatcher, type RunningDispatcher } from '../../src/bootstrap/dispatcher.js';
import { TOKENS } from '../../src/application/tokens.js';
import type { CreatedWorkspace } from '../../src/application/workspaces/create-workspace.js';
import { servicePath } from '../../src/domain/custody/derivation.js';
import { creditDeposit } from '../../src/domain/ledger/entries.js';
import { Amount } from '../../src/domain/money/amount.js';
import type { UnitOfWork } from '../../src/domain/ports.js';
import { startTestChain, type TestChain } from '../support/anvil-chain.js';
import { codesOf } from '../support/dashboard.js';
import { createTestDatabase, type TestDatabase } from '../support/database.js';
import { freePort } from '../support/free-port.js';
import { TEST_ENCRYPTION_KEY, TEST_SEED, createWorkspace, startTestApi, testConfig, uniqueCall, type TestApi } from '../support/harness.js';
import { opsEnv, poll, runEntry, spawnEntry, type Spawned } from '../support/processes.js';
import { startReceiver, type Receiver } from '../support/webhook-receiver.js';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const SHOTS = join(process.cwd(), 'test-results', 'screenshots');
const DESTINATION = '0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed';
const PAGES = ['security', 'approvals', 'money', 'webhooks', 'keys', 'fees', 'members', 'audit'];

let db: TestDatabase;
/** The sandbox side: registers the local receiver (private addresses are refused in production) and holds the books. */
let setup: TestApi;
let api: Spawned | undefined;
let base = '';
let dispatcher: RunningDispatcher;
let worker: Spawned | undefined;
let eth: TestChain;
let receiver: Receiver;
let ws: CreatedWorkspace;
let browser: Browser;
let mining: NodeJS.Timeout | undefined;
/** Requests the pages made to anything but this machine (none may be made). */
const offMachine: string[] = [];

/** A browser context whose every request off 127.0.0.1 is refused, as with the network cut. */
async function offline(viewport = { width: 1280, height: 900 }): Promise<BrowserContext> {
  const context = await browser.newContext({ viewport });
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.hostname === '127.0.0.1' || url.protocol === 'data:') return route.continue();
    offMachine.push(url.toString());
    return route.abort('internetdisconnected');
  });
  return context;
}

const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });

/** Accepts an invitation link in the page: password twice, the TOTP secret read off the page, one code. */
async function join_(page: Page, link: string, password: string, name: string): Promise<{ codes: () => Promise<string>; recovery: string[] }> {
  await page.goto(link);
  const key = (await page.locator('#totp-secret').textContent())!.trim();
  // A mistake (two passwords that differ) shows the form again with the same key, the one the app scanned.
  await page.getByLabel('Password (at least 12 characters)').fill(password);
  await page.getByLabel('The same password again').fill(`${password}!`);
  await page.getByLabel('Code from the app').fill('000000');
  await page.getByRole('button', { name: 'Join' }).click();
  await expect.poll(() => page.getByRole('alert').textContent()).toContain('The two passwords differ');
  expect((await page.locator('#totp-secret').textContent())!.trim()).toBe(key);
  await page.getByLabel('Password (at least 12 characters)').fill(password);
  await page.getByLabel('The same password again').fill(password);
  const codes = codesOf(key);
  await shot(page, `${name}-enrolment`);
  await page.getByLabel('Code from the app').fill(await codes());
  await page.getByRole('button', { name: 'Join' }).click();
  await page.waitForLoadState();
  await expect.poll(() => page.locator('#recovery-codes').textContent()).toMatch(/^([0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}\n){9}[0-9a-f]{4}(-[0-9a-f]{4}){3}$/);
  await shot(page, `${name}-recovery-codes`);
  return { codes, recovery: (await page.locator('#recovery-codes').textContent())!.split('\n') };
}

async function signIn(page: Page, email: string, password: string, code: string): Promise<void> {
  await page.goto(`${base}/dashboard/sign-in`);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByLabel('Authenticator code (or a recovery code)').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL('**/dashboard/security');
}

const withdrawalStatus = async (id: string) => (await uniqueCall(base, ws.liveKey, 'GET', `/v2/withdrawals/${id}`)).body.status as string;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`No Chromium at ${CHROMIUM}: install Debian's (apt-get install chromium), or set CHROMIUM_PATH to one`);
  mkdirSync(SHOTS, { recursive: true });
  eth = await startTestChain({ chainId: 1, decimals: [6] });
  db = await createTestDatabase();
  // The receiver is on this machine: the sandbox-side api registers it and the dispatcher delivers to it.
  const local = { WEBHOOK_ALLOW_PRIVATE: 'true' };
  setup = await startTestApi(testConfig(db.url, local));
  dispatcher = await startDispatcher(testConfig(db.url, local));
  ws = await createWorkspace(setup, 'browser');
  receiver = await startReceiver();
  const endpoint = await uniqueCall(setup.baseUrl, ws.liveKey, 'POST', '/v2/webhooks', { url: receiver.url, events: ['WITHDRAWAL_POLICY_CHANGED', 'WITHDRAWAL_PENDING_APPROVAL'] });
  expect(endpoint.status).toBe(201);
  // 2 ETH credited on ETH_MAINNET, and the treasury funded on the chain-id-1 node to pay out.
  await setup.infra.container.resolve<UnitOfWork>(TOKENS.UnitOfWork).run((tx) =>
    tx.ledger.post(creditDeposit({ id: randomUUID(), network: 'ETH_MAINNET', at: new Date(), depositId: randomUUID(), workspaceId: ws.workspaceId, gross: Amount.parse('2', 'ETH'), fee: Amount.zero('ETH') })),
  );
  const treasury = await new LocalHdSigner(TEST_SEED).deriveAddress('ETH', servicePath('ETH_MAINNET', 'treasury'));
  await rpc(eth.anvil.rpcUrl, 'anvil_setBalance', [treasury, `0x${(10n ** 19n).toString(16)}`]);
  mining = setInterval(() => void eth.mine().catch(() => undefined), 250);
  // Mainnets run in production mode only: the api and the chain-worker as deployed, against the chain-id-1 node.
  const production = (extra: Record<string, string>): NodeJS.ProcessEnv => ({
    ...process.env,
    NODE_ENV: 'production',
    DATABASE_URL: db.url,
    SECRET_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    HOST: '127.0.0.1',
    LOG_LEVEL: 'info',
    ETH_MAINNET_RPC_URL: eth.anvil.rpcUrl,
    ETH_MAINNET_START_BLOCK: '0',
    ETH_MAINNET_CONFIRMATIONS: '2',
    ...extra,
  });
  worker = spawnEntry('src/bootstrap/chain-worker.ts', production({ MASTER_SEED: TEST_SEED, CHAIN_WORKER_PORT: String(await freePort()), SEND_INTERVAL_MS: '200', SCAN_POLL_MS: '200' }));
  const port = await freePort();
  api = spawnEntry('src/bootstrap/api.ts', production({ PORT: String(port), ADMIN_PORT: String(await freePort()) }));
  await Promise.all([worker.waitFor(/chain-worker listening/, 30_000), api.waitFor(/api listening/, 30_000)]);
  base = `http://127.0.0.1:${port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox'] });
}, 120_000);

afterAll(async () => {
  if (mining) clearInterval(mining);
  await browser?.close();
  for (const p of [api, worker]) if (p?.child.exitCode === null) p.child.kill('SIGKILL');
  await receiver?.close();
  await dispatcher?.close();
  await setup?.close();
  await db?.drop();
  await eth?.stop();
});

describe('the owner’s dashboard in Chromium', () => {
  it('runs the owner’s first hour: invitation, sign-in, a limit, an approver, a quorum of 2, a withdrawal paid after the second approval, the audit log', async () => {
    const ownerEmail = 'owner@example.com';
    const ownerPassword = 'a long owner passphrase';
    const invited = await runEntry('src/bootstrap/ops.ts', opsEnv(db.url, { DASHBOARD_URL: `${base}/dashboard` }), ['owner', 'invite', '--workspace', ws.workspaceId, '--email', ownerEmail, '--json']);
    expect(invited.code, invited.stderr).toBe(0);
    const link = (JSON.parse(invited.stdout) as { link: string }).link;

    const ownerContext = await offline();
    const owner = await ownerContext.newPage();
    const { codes: ownerCodes, recovery: ownerRecovery } = await join_(owner, link, ownerPassword, 'owner');
    await signIn(owner, ownerEmail, ownerPassword, await ownerCodes());
    await shot(owner, 'security');

    // The 24-hour limit, with the second factor again: the receiver gets WITHDRAWAL_POLICY_CHANGED.
    await owner.getByLabel('24-hour limit').fill('5000');
    await owner.locator('#policy-code').fill(await ownerCodes());
    await owner.getByRole('button', { name: 'Save the rules' }).click();
    await expect.poll(() => owner.getByRole('status').textContent()).toContain('WITHDRAWAL_POLICY_CHANGED was sent');
    const changed = await poll(async () => receiver.received.find((r) => JSON.parse(r.rawBody).event === 'WITHDRAWAL_POLICY_CHANGED'), 20_000, 'WITHDRAWAL_POLICY_CHANGED at the receiver');
    expect(JSON.parse(changed.rawBody).data).toMatchObject({ changed: ['daily_limit'], policy: { daily_limit: '5000' } });

    // An APPROVER, invited from the dashboard, joins in their own browser.
    await owner.goto(`${base}/dashboard/members`);
    await owner.getByLabel('Email').fill('approver@example.com');
    await owner.getByLabel('Role').selectOption('APPROVER');
    // The later changes with recovery codes (a second factor too): TOTP codes come two per 30-second step.
    await owner.locator('#invite-code').fill(ownerRecovery.shift()!);
    await owner.getByRole('button', { name: 'Invite' }).click();
    const approverLink = (await owner.locator('#invitation-link').textContent())!.trim();
    const approverContext = await offline({ width: 390, height: 844 }); // a phone
    const approver = await approverContext.newPage();
    const { codes: approverCodes, recovery: approverRecovery } = await join_(approver, approverLink, 'a long approver passphrase', 'approver');
    await signIn(approver, 'approver@example.com', 'a long approver passphrase', await approverCodes());

    // A quorum of 2 above 0.5 (ETH in its own units).
    await owner.goto(`${base}/dashboard/security`);
    await owner.getByLabel('Approval needed above').fill('0.5');
    await owner.getByLabel('Approvals needed (distinct members, 1 to 10)').fill('2');
    await owner.locator('#policy-code').fill(ownerRecovery.shift()!);
    await owner.getByRole('button', { name: 'Save the rules' }).click();
    await expect.poll(() => owner.getByRole('status').textContent()).toContain('Saved');

    const w = await uniqueCall(base, ws.liveKey, 'POST', '/v2/withdrawals', { chain: 'ETH', asset: 'ETH', amount: '1', destination_address: DESTINATION });
    expect([w.status, w.body.status]).toEqual([201, 'PENDING_APPROVAL']);
    const id = w.body.id as string;

    await owner.goto(`${base}/dashboard/approvals`);
    await expect.poll(() => owner.locator('main').textContent()).toContain(id);
    await shot(owner, 'approvals-waiting');
    await owner.locator(`#approve-code-${id}`).fill(ownerRecovery.shift()!);
    await owner.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => owner.getByRole('status').textContent()).toContain('once the quorum is met');
    await new Promise((r) => setTimeout(r, 1500));
    expect(await withdrawalStatus(id)).toBe('PENDING_APPROVAL');
    // One member counts once.
    expect(await owner.locator('main').textContent()).toContain('(1 of 2)');

    await approver.goto(`${base}/dashboard/approvals`);
    await approver.locator(`#approve-code-${id}`).fill(approverRecovery.shift()!);
    await approver.getByRole('button', { name: 'Approve' }).click();
    await expect.poll(() => approver.getByRole('status').textContent()).toContain('the quorum is met');
    await shot(approver, 'approvals-phone');
    await poll(async () => ((await withdrawalStatus(id)) === 'CONFIRMED' ? true : undefined), 60_000, 'the withdrawal CONFIRMED on the chain-id-1 node');
    expect(BigInt(await rpc<string>(eth.anvil.rpcUrl, 'eth_getBalance', [DESTINATION, 'latest']))).toBeGreaterThan(0n);

    // The audit log names each action's member and address.
    await owner.goto(`${base}/dashboard/audit`);
    const rows = await owner.locator('tbody tr').allTextContents();
    const row = (action: string, who: string) => rows.find((r) => r.includes(action) && r.includes(who) && r.includes('127.0.0.1'));
    for (const [action, who] of [
      ['member.join', ownerEmail],
      ['member.sign-in', ownerEmail],
      ['policy.set', ownerEmail],
      ['member.invite', ownerEmail],
      ['member.join', 'approver@example.com'],
      ['withdrawal.approve', ownerEmail],
      ['withdrawal.approve', 'approver@example.com'],
    ] as const) {
      expect(row(action, who), `${action} by ${who}`).toBeDefined();
    }
    await shot(owner, 'audit');

    // Every page, from the navigation, with the network cut: it renders, and asks nothing of any other machine.
    for (const name of PAGES) {
      await owner.goto(`${base}/dashboard/${name}`);
      expect(await owner.locator('h1').count(), name).toBe(1);
      expect(await owner.locator('.error').count(), name).toBe(0);
      await shot(owner, `page-${name}`);
    }
    await approver.goto(`${base}/dashboard/money`);
    await shot(approver, 'money-phone');
    expect(offMachine).toEqual([]);

    // The keyboard: the first Tab reaches the skip link, which leads to the page's content.
    await owner.goto(`${base}/dashboard/security`);
    await owner.keyboard.press('Tab');
    expect(await owner.evaluate('document.activeElement?.textContent')).toBe('Skip to content');
    await owner.keyboard.press('Enter');
    expect(await owner.evaluate('document.activeElement?.id')).toBe('main');
    await ownerContext.close();
    await approverContext.close();
  }, 240_000); // the owner's third TOTP code (the 24-hour limit) waits for the next 30-second step
});
