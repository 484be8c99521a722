// In-memory fakes of every port: small honest implementations (they keep state
// and enforce the same rules), so a use case can be tested in a few lines with
// no database. Not for integration tests: those use the real PostgreSQL.
import type { EnergyRepo } from '../../src/domain/energy/delegation.js';
import type { SweepRepo, TransferRepo } from '../../src/domain/transfers/ports.js';
import type { WithdrawalRepo } from '../../src/domain/withdrawals/ports.js';
import type { CommitmentRepo, FxRateRepo } from '../../src/domain/commitments/ports.js';
import type { TreasuryRepo } from '../../src/domain/custody/ports.js';
import type { UnexpectedDepositRepo } from '../../src/domain/deposits/ports.js';
import type { AuditRepo, MemberRepo, SessionRepo } from '../../src/domain/members/ports.js';
import type { FaucetRepo } from '../../src/domain/faucet/ports.js';
import type { TransactionLog } from '../../src/domain/withdrawals/transaction-log.js';
import type { DepositRepo, ScanStateRepo, ScreeningRepo } from '../../src/domain/deposits/ports.js';
import { createHmac, timingSafeEqual } from 'node:crypto';
import type { EventPublisher, PublishedEvent, WebhookDeliveryRepo, WebhookEndpointRepo } from '../../src/domain/webhooks/ports.js';
import type { EventName } from '../../src/domain/webhooks/events.js';
import type { WithdrawalPolicyRepo } from '../../src/domain/security/ports.js';
import type { WebhookEndpoint } from '../../src/domain/webhooks/webhook-endpoint.js';
import type { ApiKey } from '../../src/domain/auth/api-key.js';
import type { IdempotencyRecord, IdempotencyScope } from '../../src/domain/idempotency/idempotency.js';
import type { Asset, BaseChain, Network, NetworkSide } from '../../src/domain/money/networks.js';
import type { Customer, CustomerFilter, CustomerPatch } from '../../src/domain/customers/customer.js';
import { formatPath, type DerivationPath } from '../../src/domain/custody/derivation.js';
import type { Wallet, WalletFilter } from '../../src/domain/wallets/wallet.js';
import { DomainError } from '../../src/domain/errors.js';
import { DEFAULT_TIERS, type FeeOverride, type FeeTier } from '../../src/domain/fees/fee-schedule.js';
import { NON_NEGATIVE_KINDS, SERVICE_OWNER, accountKey, type Balance, type JournalEntry, type LedgerAccountKind } from '../../src/domain/ledger/journal.js';
import { offsetOf, type Page, type PageRequest } from '../../src/domain/pagination.js';
import type { JobName, JobPayloads } from '../../src/domain/jobs/job-names.js';
import type { ApiKeyRepo, Clock, CustomerRepo, DerivationAllocator, FeeConfigRepo, IdempotencyStore, NetworkSwitches, WalletRepo, CredentialStore, JobQueue, NetworkConfig, NetworkRegistry, Admission, AdmissionRequest, Credential, IdempotencyClaim, RandomSource, RequestAdmission, RequestSigner, SecretCipher, TxContext, UnitOfWork, WorkspaceRepo } from '../../src/domain/ports.js';
import type { DailyBalanceChange, LedgerRepo } from '../../src/domain/ledger/ports.js';
import type { SignerPort, AddressDeriver } from '../../src/domain/custody/ports.js';
import type { Workspace, WorkspaceStatus } from '../../src/domain/workspaces/workspace.js';

export class FakeClock implements Clock {
  constructor(private current = new Date('2026-01-01T00:00:00Z')) {}
  now(): Date {
    return new Date(this.current);
  }
  set(at: Date | string): void {
    this.current = new Date(at);
  }
  advance(ms: number): void {
    this.current = new Date(this.current.getTime() + ms);
  }
}

/** Deterministic ids and tokens: uuid-shaped counters. */
export class SequenceRandom implements RandomSource {
  private n = 0;
  uuid(): string {
    this.n += 1;
    return `00000000-0000-4000-8000-${this.n.toString(16).padStart(12, '0')}`;
  }
  token(bytes: number): string {
    this.n += 1;
    return `tok${this.n}`.padEnd(Math.ceil((bytes * 4) / 3), 'x');
  }
}

/** Reversible and tamper-evident enough for tests; never confuses plaintext with ciphertext. */
export class FakeCipher implements SecretCipher {
  encrypt(plaintext: string): string {
    return `fake:${Buffer.from(plaintext, 'utf8').toString('base64')}`;
  }
  decrypt(ciphertext: string): string {
    if (!ciphertext.startsWith('fake:')) throw new Error('not a FakeCipher ciphertext');
    return Buffer.from(ciphertext.slice(5), 'base64').toString('utf8');
  }
}

/** The real algorithm (it is pure computation), so fakes and adapters sign alike. */
export class FakeRequestSigner implements RequestSigner {
  sign(secret: string, message: string): string {
    return createHmac('sha256', secret).update(message).digest('hex');
  }
  equals(a: string, b: string): boolean {
    return a.length === b.length && timingSafeEqual(Buffer.from(a), Buffer.from(b));
  }
}

/** The state behind the fakes: one object, so a unit of work can roll it back. */
export class InMemoryStore {
  workspaces = new Map<string, Workspace>();
  apiKeys = new Map<string, ApiKey>();
  jobs: { name: JobName; payload: unknown }[] = [];
  /** Events published through the unit of work, in order. */
  published: PublishedEvent[] = [];
  idempotency = new Map<string, IdempotencyRecord>();
  customers = new Map<string, Customer>();
  wallets = new Map<string, Wallet>();
  /** (workspace, network) → account, and account → next index. */
  accounts = new Map<string, number>();
  nextIndexes = new Map<number, number>();
  /** account → its pooled (index, address) pairs, lowest first. */
  addressPool = new Map<number, { index: number; address: string }[]>();
  entries = new Map<string, JournalEntry>();
  ledgerBalances = new Map<string, bigint>();
  tiers: FeeTier[] | null = null;
  overrides = new Map<string, FeeOverride>();
  webhookEndpoints = new Map<string, WebhookEndpoint>();
  /** Endpoint ids with a PENDING delivery. */
  pendingDeliveries = new Set<string>();
  /** Idempotency locks held by the running unit of work. */
  locks = new Set<string>();

  snapshot(): () => void {
    const ws = new Map([...this.workspaces].map(([k, v]) => [k, { ...v }]));
    const ks = new Map([...this.apiKeys].map(([k, v]) => [k, { ...v }]));
    const js = [...this.jobs];
    const pub = [...this.published];
    const ids = new Map(this.idempotency);
    const cs = new Map([...this.customers].map(([k, v]) => [k, { ...v }]));
    const wls = new Map([...this.wallets].map(([k, v]) => [k, { ...v }]));
    const acc = new Map(this.accounts);
    const nxt = new Map(this.nextIndexes);
    const pool = new Map([...this.addressPool].map(([k, v]) => [k, [...v]]));
    const ens = new Map(this.entries);
    const bal = new Map(this.ledgerBalances);
    const trs = this.tiers ? [...this.tiers] : null;
    const ovs = new Map(this.overrides);
    const whs = new Map([...this.webhookEndpoints].map(([k, v]) => [k, { ...v, events: [...v.events] }]));
    return () => {
      this.webhookEndpoints = whs;
      this.workspaces = ws;
      this.apiKeys = ks;
      this.jobs = js;
      this.published = pub;
      this.idempotency = ids;
      this.customers = cs;
      this.wallets = wls;
      this.accounts = acc;
      this.nextIndexes = nxt;
      this.addressPool = pool;
      this.entries = ens;
      this.ledgerBalances = bal;
      this.tiers = trs;
      this.overrides = ovs;
    };
  }
}

export class InMemoryWorkspaceRepo implements WorkspaceRepo {
  constructor(private readonly store: InMemoryStore) {}
  async add(w: Workspace): Promise<void> {
    if (this.store.workspaces.has(w.id)) throw new Error(`duplicate workspace ${w.id}`);
    this.store.workspaces.set(w.id, { ...w });
  }
  async get(id: string): Promise<Workspace | null> {
    const w = this.store.workspaces.get(id);
    return w ? { ...w } : null;
  }
  async setStatus(id: string, status: WorkspaceStatus, at: Date): Promise<boolean> {
    const w = this.store.workspaces.get(id);
    if (!w) return false;
    this.store.workspaces.set(id, { ...w, status, updatedAt: at });
    return true;
  }
  async setContactEmail(id: string, email: string | null, at: Date): Promise<boolean> {
    const w = this.store.workspaces.get(id);
    if (!w) return false;
    this.store.workspaces.set(id, { ...w, contactEmail: email, updatedAt: at });
    return true;
  }
  async setWithdrawalsFrozen(id: string, frozen: boolean, at: Date): Promise<boolean> {
    const w = this.store.workspaces.get(id);
    if (!w) return false;
    this.store.workspaces.set(id, { ...w, withdrawalsFrozen: frozen, updatedAt: at });
    return true;
  }
}

export class InMemoryApiKeyRepo implements ApiKeyRepo {
  constructor(private readonly store: InMemoryStore) {}
  async add(key: ApiKey): Promise<void> {
    for (const k of this.store.apiKeys.values()) {
      if (k.keyId === key.keyId) throw new Error(`duplicate key_id ${key.keyId}`);
    }
    this.store.apiKeys.set(key.id, { ...key });
  }
  async findByKeyId(keyId: string): Promise<ApiKey | null> {
    const k = [...this.store.apiKeys.values()].find((x) => x.keyId === keyId);
    return k ? { ...k } : null;
  }
  async listActive(workspaceId: string, side: NetworkSide, now: Date, page: PageRequest): Promise<Page<ApiKey>> {
    const all = [...this.store.apiKeys.values()]
      .filter((k) => k.workspaceId === workspaceId && k.isTest === (side === 'test') && k.revokedAt === null)
      .filter((k) => k.expiresAt === null || k.expiresAt > now)
      .sort((a, b) => b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1));
    const data = all.slice(offsetOf(page), offsetOf(page) + page.limit).map((k) => ({ ...k }));
    return { total: all.length, page: page.page, limit: page.limit, data };
  }
  async countActiveForUpdate(workspaceId: string, side: NetworkSide, now: Date): Promise<number> {
    return (await this.listActive(workspaceId, side, now, { page: 1, limit: 1 })).total;
  }
  async revoke(id: string, workspaceId: string, side: NetworkSide, at: Date): Promise<boolean> {
    const k = this.store.apiKeys.get(id);
    if (!k || k.workspaceId !== workspaceId || k.isTest !== (side === 'test') || k.revokedAt) return false;
    this.store.apiKeys.set(id, { ...k, revokedAt: at });
    return true;
  }
}

const newestFirst = <T extends { createdAt: Date; id: string }>(a: T, b: T) =>
  b.createdAt.getTime() - a.createdAt.getTime() || (a.id < b.id ? 1 : -1);

const pageOf = <T>(all: T[], page: PageRequest): Page<T> => ({
  total: all.length,
  page: page.page,
  limit: page.limit,
  data: all.slice(offsetOf(page), offsetOf(page) + page.limit),
});

export class InMemoryCustomerRepo implements CustomerRepo {
  constructor(private readonly store: InMemoryStore) {}
  async add(c: Customer): Promise<boolean> {
    const taken = [...this.store.customers.values()].some(
      (x) => x.workspaceId === c.workspaceId && x.side === c.side && x.externalRef === c.externalRef,
    );
    if (taken) return false;
    this.store.customers.set(c.id, { ...c });
    return true;
  }
  async get(workspaceId: string, side: NetworkSide, id: string): Promise<Customer | null> {
    const c = this.store.customers.get(id);
    return c && c.workspaceId === workspaceId && c.side === side ? { ...c } : null;
  }
  async list(workspaceId: string, side: NetworkSide, f: CustomerFilter, page: PageRequest): Promise<Page<Customer>> {
    const all = [...this.store.customers.values()]
      .filter((c) => c.workspaceId === workspaceId && c.side === side)
      .filter((c) => (f.status ? c.status === f.status : true) && (f.externalRef !== undefined ? c.externalRef === f.externalRef : true))
      .sort(newestFirst);
    return pageOf(all, page);
  }
  async update(workspaceId: string, side: NetworkSide, id: string, patch: CustomerPatch, at: Date): Promise<Customer | null> {
    const c = await this.get(workspaceId, side, id);
    if (!c) return null;
    const next = { ...c, ...Object.fromEntries(Object.entries(patch).filter(([, v]) => v !== undefined)), updatedAt: at };
    this.store.customers.set(id, next);
    return { ...next };
  }
}

export class InMemoryDerivationAllocator implements DerivationAllocator {
  constructor(private readonly store: InMemoryStore) {}
  async account(workspaceId: string, network: Network): Promise<number> {
    const k = `${workspaceId}:${network}`;
    let a = this.store.accounts.get(k);
    if (a === undefined) {
      a = this.store.accounts.size + 1;
      this.store.accounts.set(k, a);
    }
    return a;
  }
  async nextIndex(account: number): Promise<number> {
    return this.nextIndexes(account, 1);
  }
  async nextIndexes(account: number, count: number): Promise<number> {
    const i = this.store.nextIndexes.get(account) ?? 0;
    this.store.nextIndexes.set(account, i + count);
    return i;
  }
  async claimPooled(account: number): Promise<{ index: number; address: string; left: number } | null> {
    const pool = this.store.addressPool.get(account) ?? [];
    const first = pool.shift();
    return first ? { ...first, left: pool.length } : null;
  }
  async tryLockPool(): Promise<boolean> {
    return true;
  }
  async pooled(account: number): Promise<number> {
    return this.store.addressPool.get(account)?.length ?? 0;
  }
  async pool(account: number, entries: readonly { index: number; address: string }[]): Promise<void> {
    const pool = [...(this.store.addressPool.get(account) ?? []), ...entries].sort((a, b) => a.index - b.index);
    this.store.addressPool.set(account, pool);
  }
}

export class InMemoryWalletRepo implements WalletRepo {
  constructor(private readonly store: InMemoryStore) {}
  async add(w: Wallet): Promise<void> {
    if ([...this.store.wallets.values()].some((x) => x.network === w.network && x.address === w.address)) {
      throw new Error(`duplicate address ${w.address}`);
    }
    this.store.wallets.set(w.id, { ...w });
  }
  async get(workspaceId: string, networks: readonly Network[], id: string): Promise<Wallet | null> {
    const w = this.store.wallets.get(id);
    return w && w.workspaceId === workspaceId && networks.includes(w.network) ? { ...w } : null;
  }
  async list(workspaceId: string, networks: readonly Network[], f: WalletFilter, page: PageRequest): Promise<Page<Wallet>> {
    const all = [...this.store.wallets.values()]
      .filter((w) => w.workspaceId === workspaceId && networks.includes(w.network))
      .filter((w) => (f.status ? w.status === f.status : w.status !== 'ARCHIVED'))
      .filter((w) => (f.network ? w.network === f.network : true) && (f.asset ? w.asset === f.asset : true))
      .filter((w) => (f.customerId ? w.customerId === f.customerId : true))
      .sort(newestFirst);
    return pageOf(all, page);
  }
  async reactivate(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      const w = this.store.wallets.get(id);
      if (w?.status === 'SWEPT') this.store.wallets.set(id, { ...w, status: 'ACTIVE' });
    }
  }
  async setStatus(id: string, status: Wallet['status']): Promise<void> {
    const w = this.store.wallets.get(id);
    if (w) this.store.wallets.set(id, { ...w, status });
  }
  async byAddresses(network: Network, addresses: readonly string[]): Promise<Wallet[]> {
    return [...this.store.wallets.values()].filter((w) => w.network === network && addresses.includes(w.address)).map((w) => ({ ...w }));
  }
  async existsAt(candidates: readonly { networks: readonly Network[]; address: string }[]): Promise<boolean> {
    return [...this.store.wallets.values()].some((w) => candidates.some((c) => c.networks.includes(w.network) && w.address === c.address));
  }
}

/** The ledger's rules in memory: balanced entries, unique references, no negative AVAILABLE or LOCKED. */
export class InMemoryLedger implements LedgerRepo {
  constructor(private readonly store: InMemoryStore) {}
  async post(entry: JournalEntry): Promise<'posted' | 'duplicate'> {
    if ([...this.store.entries.values()].some((e) => e.reference === entry.reference)) return 'duplicate';
    const next = new Map(this.store.ledgerBalances);
    for (const p of entry.postings) {
      const k = accountKey(p.account);
      const b = (next.get(k) ?? 0n) + p.amount;
      if (b < 0n && NON_NEGATIVE_KINDS.has(p.account.kind)) throw new DomainError('INSUFFICIENT_BALANCE', 'insufficient balance');
      next.set(k, b);
    }
    this.store.ledgerBalances = next;
    this.store.entries.set(entry.id, entry);
    return 'posted';
  }
  async postMany(entries: readonly JournalEntry[]): Promise<('posted' | 'duplicate')[]> {
    const out: ('posted' | 'duplicate')[] = [];
    for (const e of entries) out.push(await this.post(e));
    return out;
  }
  async postedAmong(references: readonly string[]): Promise<Set<string>> {
    return new Set([...this.store.entries.values()].map((e) => e.reference).filter((r) => references.includes(r)));
  }
  async posted(reference: string): Promise<boolean> {
    return [...this.store.entries.values()].some((e) => e.reference === reference);
  }
  async serviceBalance(network: Network, asset: Asset, kind: LedgerAccountKind): Promise<bigint> {
    return this.store.ledgerBalances.get(accountKey({ owner: SERVICE_OWNER, kind, network, asset })) ?? 0n;
  }
  async balances(workspaceId: string, networks: readonly Network[], f: { network?: Network; asset?: Asset }): Promise<Balance[]> {
    const out = new Map<string, Balance>();
    for (const [k, v] of this.store.ledgerBalances) {
      const [owner, kind, network, asset] = k.split('|') as [string, string, Network, Asset];
      if (owner !== workspaceId || !networks.includes(network) || (kind !== 'AVAILABLE' && kind !== 'LOCKED')) continue;
      if ((f.network && f.network !== network) || (f.asset && f.asset !== asset)) continue;
      const b = out.get(`${network}|${asset}`) ?? { network, asset, available: 0n, locked: 0n };
      if (kind === 'AVAILABLE') b.available += v;
      else b.locked += v;
      out.set(`${network}|${asset}`, b);
    }
    return [...out.values()];
  }
  async feesCharged(workspaceId: string, networks: readonly Network[], from: Date, to: Date): Promise<Map<Asset, bigint>> {
    const fees = new Map<Asset, bigint>();
    const kinds = ['DEPOSIT_CREDIT', 'DEPOSIT_REVERSAL', 'WITHDRAWAL_CONSUME', 'WITHDRAWAL_REFUND', 'WITHDRAWAL_REFUND_REVERSAL'];
    for (const e of this.store.entries.values()) {
      if (e.workspaceId !== workspaceId || !networks.includes(e.network) || e.createdAt < from || e.createdAt >= to || !kinds.includes(e.kind)) continue;
      if (e.asset === 'ETH' || e.asset === 'BNB' || e.asset === 'TRX') continue;
      for (const p of e.postings) if (p.account.kind === 'REVENUE') fees.set(e.asset, (fees.get(e.asset) ?? 0n) + p.amount);
    }
    return fees;
  }
  async dailyBalanceChanges(workspaceId: string, networks: readonly Network[], since: Date): Promise<DailyBalanceChange[]> {
    const byDay = new Map<string, DailyBalanceChange>();
    for (const e of this.store.entries.values()) {
      if (e.createdAt < since) continue;
      for (const p of e.postings) {
        const a = p.account;
        if (a.owner !== workspaceId || !networks.includes(a.network) || (a.kind !== 'AVAILABLE' && a.kind !== 'LOCKED')) continue;
        const day = e.createdAt.toISOString().slice(0, 10);
        const key = `${a.network}|${a.asset}|${day}`;
        const c = byDay.get(key) ?? { network: a.network, asset: a.asset as Asset, day, change: 0n };
        c.change += p.amount;
        byDay.set(key, c);
      }
    }
    return [...byDay.values()].filter((c) => c.change !== 0n);
  }
  async volumeUsd(workspaceId: string, networks: readonly Network[], since: Date): Promise<bigint> {
    let v = 0n;
    for (const e of this.store.entries.values()) {
      if (e.workspaceId !== workspaceId || !networks.includes(e.network) || e.createdAt < since) continue;
      if (e.asset === 'ETH' || e.asset === 'BNB') continue;
      const kind =
        e.kind === 'DEPOSIT_CREDIT' ? 'TREASURY' : e.kind === 'WITHDRAWAL_CONSUME' ? 'LOCKED' : e.kind === 'WITHDRAWAL_REFUND' ? 'AVAILABLE' : null;
      for (const p of e.postings) if (kind && p.account.kind === kind) v += -p.amount;
    }
    return v;
  }
}

export class InMemoryFeeConfig implements FeeConfigRepo {
  constructor(private readonly store: InMemoryStore) {}
  async tiers(): Promise<FeeTier[]> {
    return (this.store.tiers ?? DEFAULT_TIERS).map((t) => ({ ...t }));
  }
  async setTier(tier: FeeTier): Promise<void> {
    const tiers = (this.store.tiers ?? DEFAULT_TIERS.map((t) => ({ ...t }))).filter((t) => t.name !== tier.name);
    this.store.tiers = [...tiers, tier].sort((a, b) => (a.minVolumeUsd < b.minVolumeUsd ? -1 : 1));
  }
  async override(workspaceId: string): Promise<FeeOverride | null> {
    return this.store.overrides.get(workspaceId) ?? null;
  }
  async setOverride(o: FeeOverride): Promise<void> {
    this.store.overrides.set(o.workspaceId, o);
  }
  async clearOverride(workspaceId: string): Promise<boolean> {
    return this.store.overrides.delete(workspaceId);
  }
}

/** Addresses that are a readable function of chain and path: distinct paths, distinct addresses. */
export class FakeSigner implements SignerPort {
  async deriveAddress(chain: BaseChain, path: DerivationPath): Promise<string> {
    return `${chain}:${formatPath(path)}`;
  }
  async signDigest(): Promise<never> {
    throw new Error('FakeSigner does not sign');
  }
}

export class InMemoryNetworkSwitches implements NetworkSwitches {
  readonly values: Partial<Record<Network, boolean>> = {};
  async overrides(): Promise<Partial<Record<Network, boolean>>> {
    return { ...this.values };
  }
  async set(network: Network, enabled: boolean): Promise<void> {
    this.values[network] = enabled;
  }
}

const scopeKey = (s: IdempotencyScope): string => JSON.stringify([s.workspaceId, s.side, s.method, s.path, s.key]);

export class InMemoryIdempotencyStore implements IdempotencyStore {
  constructor(
    private readonly store: InMemoryStore,
    private readonly taken: Set<string>,
  ) {}
  async claim(scope: IdempotencyScope, now: Date): Promise<IdempotencyClaim> {
    const k = scopeKey(scope);
    if (this.store.locks.has(k) && !this.taken.has(k)) return { locked: false };
    this.store.locks.add(k);
    this.taken.add(k);
    const r = this.store.idempotency.get(k);
    return { locked: true, existing: r && r.expiresAt > now ? r : null };
  }
  async save(record: IdempotencyRecord): Promise<void> {
    this.store.idempotency.set(scopeKey(record), record);
  }
}

export class InMemoryJobQueue implements JobQueue {
  constructor(private readonly store: InMemoryStore) {}
  async enqueue<N extends JobName>(name: N, payload: JobPayloads[N]): Promise<void> {
    this.store.jobs.push({ name, payload });
  }
  async enqueueMany<N extends JobName>(name: N, payloads: readonly JobPayloads[N][]): Promise<void> {
    for (const payload of payloads) this.store.jobs.push({ name, payload });
  }
}

export class InMemoryWebhookEndpointRepo implements WebhookEndpointRepo {
  constructor(private readonly store: InMemoryStore) {}
  async add(e: WebhookEndpoint): Promise<void> {
    this.store.webhookEndpoints.set(e.id, { ...e, events: [...e.events] });
  }
  async get(workspaceId: string, side: NetworkSide, id: string): Promise<WebhookEndpoint | null> {
    const e = this.store.webhookEndpoints.get(id);
    return e && e.workspaceId === workspaceId && e.side === side ? { ...e, events: [...e.events] } : null;
  }
  getForUpdate(workspaceId: string, side: NetworkSide, id: string): Promise<WebhookEndpoint | null> {
    return this.get(workspaceId, side, id);
  }
  async list(workspaceId: string, side: NetworkSide, page: PageRequest): Promise<Page<WebhookEndpoint>> {
    const all = [...this.store.webhookEndpoints.values()].filter((e) => e.workspaceId === workspaceId && e.side === side).sort(newestFirst);
    return { total: all.length, page: page.page, limit: page.limit, data: all.slice(offsetOf(page), offsetOf(page) + page.limit) };
  }
  async save(e: WebhookEndpoint): Promise<void> {
    this.store.webhookEndpoints.set(e.id, { ...e, events: [...e.events] });
  }
  async delete(id: string): Promise<void> {
    this.store.webhookEndpoints.delete(id);
  }
  async countForUpdate(workspaceId: string, side: NetworkSide): Promise<number> {
    return [...this.store.webhookEndpoints.values()].filter((e) => e.workspaceId === workspaceId && e.side === side).length;
  }
  async hasPendingDeliveries(endpointId: string): Promise<boolean> {
    return this.store.pendingDeliveries.has(endpointId);
  }
  async findById(id: string): Promise<WebhookEndpoint | null> {
    const e = this.store.webhookEndpoints.get(id);
    return e ? { ...e, events: [...e.events] } : null;
  }
}

/** Records published events in the store (no endpoints, no deliveries). */
export class InMemoryEventPublisher implements EventPublisher {
  constructor(private readonly store: InMemoryStore) {}
  async publish<E extends EventName>(event: PublishedEvent<E>): Promise<{ eventId: string; deliveryIds: string[] }> {
    this.store.published.push(event as PublishedEvent);
    return { eventId: `event-${this.store.published.length}`, deliveryIds: [] };
  }
  async publishMany(events: PublishedEvent[]): Promise<void> {
    for (const e of events) await this.publish(e);
  }
}

/** A repository the in-memory world does not have: any call fails the test loudly. */
const unavailable = <T extends object>(name: string): T =>
  new Proxy({} as T, {
    get: (_t, prop) => () => {
      throw new Error(`the in-memory unit of work has no ${name}.${String(prop)}; test this with a real database`);
    },
  });

/**
 * Runs work against the store; a throw restores the store as it was (rollback).
 * Nested runs behave as savepoints; locks are released when the outermost run ends.
 * Runs are not isolated from each other (tests drive them one at a time).
 */
export class InMemoryUnitOfWork implements UnitOfWork {
  private depth = 0;
  /** A savepoint is a nested run here: each run restores its own snapshot when it throws. */
  read<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    return this.run(work);
  }
  savepoint<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    return this.run(work);
  }
  private taken = new Set<string>();
  constructor(private readonly store: InMemoryStore) {}
  async run<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    const rollback = this.store.snapshot();
    this.depth += 1;
    try {
      return await work({
        workspaces: new InMemoryWorkspaceRepo(this.store),
        apiKeys: new InMemoryApiKeyRepo(this.store),
        customers: new InMemoryCustomerRepo(this.store),
        wallets: new InMemoryWalletRepo(this.store),
        derivation: new InMemoryDerivationAllocator(this.store),
        ledger: new InMemoryLedger(this.store),
        fees: new InMemoryFeeConfig(this.store),
        idempotency: new InMemoryIdempotencyStore(this.store, this.taken),
        webhooks: new InMemoryWebhookEndpointRepo(this.store),
        jobs: new InMemoryJobQueue(this.store),
        events: new InMemoryEventPublisher(this.store),
        deliveries: unavailable<WebhookDeliveryRepo>('deliveries'),
        security: unavailable<WithdrawalPolicyRepo>('security'),
        deposits: unavailable<DepositRepo>('deposits'),
        scanState: unavailable<ScanStateRepo>('scanState'),
        screening: unavailable<ScreeningRepo>('screening'),
        transfers: unavailable<TransferRepo>('transfers'),
        // Only the policies (none set: the defaults) are read by the use cases these fakes serve.
        sweeps: new Proxy(unavailable<SweepRepo>('sweeps'), {
          get: (target, prop) => (prop === 'policies' ? async () => [] : Reflect.get(target, prop)),
        }),
        energy: unavailable<EnergyRepo>('energy'),
        withdrawals: unavailable<WithdrawalRepo>('withdrawals'),
        transactionLog: unavailable<TransactionLog>('transactionLog'),
        faucet: unavailable<FaucetRepo>('faucet'),
        commitments: unavailable<CommitmentRepo>('commitments'),
        fx: unavailable<FxRateRepo>('fx'),
        treasury: unavailable<TreasuryRepo>('treasury'),
        unexpected: unavailable<UnexpectedDepositRepo>('unexpected'),
        members: unavailable<MemberRepo>('members'),
        sessions: unavailable<SessionRepo>('sessions'),
        audit: unavailable<AuditRepo>('audit'),
      });
    } catch (err) {
      rollback();
      throw err;
    } finally {
      this.depth -= 1;
      if (this.depth === 0) {
        for (const k of this.taken) this.store.locks.delete(k);
        this.taken = new Set();
      }
    }
  }
}

/** A key's version as PgCredentialStore computes it: the key but its last use, and its workspace's status. */
export function credentialVersionOf(store: InMemoryStore, apiKeyId: string): string | null {
  const key = store.apiKeys.get(apiKeyId);
  if (!key) return null;
  return JSON.stringify({ ...key, lastUsedAt: null, workspace: store.workspaces.get(key.workspaceId)?.status ?? null });
}

/** Reads the store; with `keep`, keeps what it read per key id until a fresh read, as PgCredentialStore does. */
export class InMemoryCredentialStore implements CredentialStore {
  private readonly kept = new Map<string, Credential>();
  constructor(
    private readonly store: InMemoryStore,
    private readonly keep = false,
  ) {}
  async findCredential(keyId: string, opts: { fresh?: boolean } = {}): Promise<Credential | null> {
    const kept = opts.fresh ? undefined : this.kept.get(keyId);
    if (kept) return { ...kept, remembered: true };
    const key = [...this.store.apiKeys.values()].find((k) => k.keyId === keyId);
    if (!key) return null;
    const workspace = this.store.workspaces.get(key.workspaceId);
    const credential: Credential = { key: { ...key }, workspace: workspace ? { ...workspace } : null, version: credentialVersionOf(this.store, key.id)!, remembered: false };
    if (this.keep) this.kept.set(keyId, credential);
    return credential;
  }
}

/** Replay memory and a token bucket per key, on the fake clock (same rules as PgRequestAdmission). */
export class InMemoryRequestAdmission implements RequestAdmission {
  private readonly seen = new Map<string, Date>();
  private readonly buckets = new Map<string, { tokens: number; at: number }>();
  readonly lastUsed = new Map<string, Date>();
  constructor(
    private readonly clock: Clock,
    private readonly limit = { perSecond: 50, burst: 100 },
    /** The key's version now (credentialVersionOf): a request checked against another records nothing. */
    private readonly versionOf: (apiKeyId: string) => string | null = () => null,
  ) {}
  async admit(req: AdmissionRequest): Promise<Admission> {
    if (this.versionOf(req.apiKeyId) !== req.credentialVersion) return { stale: true, replayed: false, retryAfterSeconds: null };
    const now = this.clock.now();
    const k = `${req.keyId}:${req.signature}`;
    const existing = this.seen.get(k);
    const replayed = existing !== undefined && existing > now;
    if (!replayed) this.seen.set(k, req.signatureExpiresAt);
    const b = this.buckets.get(req.keyId) ?? { tokens: this.limit.burst, at: now.getTime() };
    const refilled = Math.min(this.limit.burst, b.tokens + (Math.max(0, now.getTime() - b.at) / 1000) * this.limit.perSecond);
    const allowed = refilled >= 1;
    this.buckets.set(req.keyId, { tokens: allowed ? refilled - 1 : refilled, at: now.getTime() });
    this.lastUsed.set(req.apiKeyId, now);
    return {
      stale: false,
      replayed,
      retryAfterSeconds: allowed ? null : Math.max(1, Math.ceil((1 - refilled) / this.limit.perSecond)),
    };
  }
  async purgeExpired(now: Date): Promise<number> {
    let n = 0;
    for (const [k, exp] of this.seen) {
      if (exp <= now) {
        this.seen.delete(k);
        n += 1;
      }
    }
    return n;
  }
}

export class FixedNetworkRegistry implements NetworkRegistry {
  constructor(private readonly networks: NetworkConfig[]) {}
  async list(): Promise<NetworkConfig[]> {
    return this.networks.map((n) => ({ ...n, assets: n.assets.map((a) => ({ ...a })) }));
  }
  async get(network: Network): Promise<NetworkConfig> {
    const n = (await this.list()).find((x) => x.network === network);
    if (!n) throw new Error(`unknown network ${network}`);
    return n;
  }
}

/** Everything a use-case test needs, wired together. */
export function fakeWorld() {
  const store = new InMemoryStore();
  const clock = new FakeClock();
  return {
    store,
    clock,
    random: new SequenceRandom(),
    cipher: new FakeCipher(),
    signer: new FakeRequestSigner(),
    custody: new FakeSigner(),
    uow: new InMemoryUnitOfWork(store),
    credentials: new InMemoryCredentialStore(store),
    admission: new InMemoryRequestAdmission(clock, undefined, (id) => credentialVersionOf(store, id)),
  };
}

/**
 * The api's public derivation: FakeSigner's addresses for accounts whose xpub
 * is "recorded", null (and a refill request counted) for those in `missing`;
 * `low` says whether the pool is below its low-water mark.
 */
export class FakeAddressDeriver implements AddressDeriver {
  readonly missing = new Set<number>();
  low = false;
  refillRequests = 0;
  readonly #signer = new FakeSigner();

  async deriveAddress(chain: BaseChain, path: DerivationPath): Promise<string | null> {
    if (this.missing.has(path.account)) {
      this.refillRequests++;
      return null;
    }
    return this.#signer.deriveAddress(chain, path);
  }

  async poolLow(): Promise<boolean> {
    return this.low;
  }
}
