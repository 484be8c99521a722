// The unit of work: one MikroORM transaction whose repositories and job queue
// all write through the same connection, so state and jobs commit together.
// Inside another unit of work (found through MikroORM's transaction context)
// it becomes a savepoint of the outer transaction; directly inside an
// explicit `savepoint` it joins that savepoint (no second one: the
// idempotent creates run their use case in one savepoint, not two).
import { PgEnergyRepo } from './energy-repo.js';
import { TransactionContext } from '@mikro-orm/core';
import type { EntityManager, MikroORM } from '@mikro-orm/postgresql';
import type { Knex } from '@mikro-orm/knex';
import type PgBoss from 'pg-boss';
import type { Clock, RandomSource, TxContext, UnitOfWork } from '../../domain/ports.js';
import { TransactionalJobQueue } from '../jobs/pg-boss-jobs.js';
import { MikroApiKeyRepo } from './api-key-repo.js';
import { MikroCustomerRepo } from './customer-repo.js';
import { PgDerivationAllocator } from './derivation-allocator.js';
import { MikroFeeConfigRepo } from './fee-config-repo.js';
import { PgLedgerRepo } from './ledger-repo.js';
import { MikroWalletRepo } from './wallet-repo.js';
import { PgIdempotencyStore } from './idempotency-store.js';
import { MikroWebhookEndpointRepo } from './webhook-endpoint-repo.js';
import { MikroWorkspaceRepo } from './workspace-repo.js';
import { PgEventPublisher } from './event-publisher.js';
import { MikroWebhookDeliveryRepo } from './webhook-delivery-repo.js';
import { MikroWithdrawalPolicyRepo } from './withdrawal-policy-repo.js';
import { PgDepositRepo } from './deposit-repo.js';
import { PgUnexpectedDepositRepo } from './unexpected-deposit-repo.js';
import { PgMemberRepo } from './member-repo.js';
import { PgSessionRepo } from './session-repo.js';
import { PgAuditRepo } from './audit-repo.js';
import { PgScanStateRepo } from './scan-state-repo.js';
import { PgScreeningRepo } from './screening-repo.js';
import { PgSweepRepo } from './sweep-repo.js';
import { PgTransferRepo } from './transfer-repo.js';
import { PgWithdrawalRepo } from './withdrawal-repo.js';
import { PgTransactionLog } from './transaction-log.js';
import { PgFaucetRepo } from './faucet-repo.js';
import { PgCommitmentRepo, PgFxRateRepo } from './commitment-repo.js';
import { PgTreasuryRepo } from './treasury-repo.js';

export class MikroUnitOfWork implements UnitOfWork {
  constructor(
    private readonly orm: MikroORM,
    private readonly boss: PgBoss,
    private readonly clock: Clock,
    private readonly random: RandomSource,
  ) {}

  /** The derivation account of each (workspace, network) this process has read: a row that never changes once committed. */
  private readonly accounts = new Map<string, number>();

  /** The entity managers of open explicit savepoints: a unit of work started right inside one joins it. */
  private readonly joinable = new WeakSet<EntityManager>();

  run<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer && this.joinable.has(outer)) return work(this.contextOf(outer));
    const em = outer ?? this.orm.em.fork();
    return em.transactional((tem: EntityManager) => work(this.contextOf(tem)));
  }

  savepoint<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    const outer = this.current();
    if (!outer) throw new Error('a savepoint is taken inside a unit of work');
    return outer.transactional((tem: EntityManager) => {
      this.joinable.add(tem);
      return work(this.contextOf(tem));
    });
  }

  async read<T>(work: (ctx: TxContext) => Promise<T>): Promise<T> {
    const outer = this.current();
    if (outer) return work(this.contextOf(outer));
    const readOnly = (what: string) =>
      new Proxy({} as never, {
        get: () => {
          throw new Error(`${what} cannot be written in a read (UnitOfWork.read): use run`);
        },
      });
    return work({ ...this.repositories(this.orm.em.fork()), jobs: readOnly('a job'), events: readOnly('an event') });
  }

  private current(): EntityManager | undefined {
    const outer = TransactionContext.getEntityManager(this.orm.em.name) as EntityManager | undefined;
    return outer?.isInTransaction() ? outer : undefined;
  }

  private contextOf(tem: EntityManager): TxContext {
    const trx = tem.getTransactionContext<Knex.Transaction>();
    if (!trx) throw new Error('unit of work started outside a transaction');
    const jobs = new TransactionalJobQueue(this.boss, trx);
    return { ...this.repositories(tem), events: new PgEventPublisher(tem, jobs, this.clock, this.random), jobs };
  }

  /** The repositories on one entity manager: in a transaction (run), or on the pool (read). */
  private repositories(tem: EntityManager): Omit<TxContext, 'events' | 'jobs'> {
    return {
      workspaces: new MikroWorkspaceRepo(tem),
      apiKeys: new MikroApiKeyRepo(tem),
      customers: new MikroCustomerRepo(tem),
      wallets: new MikroWalletRepo(tem),
      derivation: new PgDerivationAllocator(tem, this.accounts),
      ledger: new PgLedgerRepo(tem),
      fees: new MikroFeeConfigRepo(tem),
      idempotency: new PgIdempotencyStore(tem),
      webhooks: new MikroWebhookEndpointRepo(tem),
      deliveries: new MikroWebhookDeliveryRepo(tem),
      security: new MikroWithdrawalPolicyRepo(tem),
      deposits: new PgDepositRepo(tem),
      scanState: new PgScanStateRepo(tem),
      screening: new PgScreeningRepo(tem),
      transfers: new PgTransferRepo(tem),
      sweeps: new PgSweepRepo(tem),
      energy: new PgEnergyRepo(tem),
      withdrawals: new PgWithdrawalRepo(tem),
      transactionLog: new PgTransactionLog(tem),
      faucet: new PgFaucetRepo(tem),
      commitments: new PgCommitmentRepo(tem),
      fx: new PgFxRateRepo(tem),
      treasury: new PgTreasuryRepo(tem),
      unexpected: new PgUnexpectedDepositRepo(tem),
      members: new PgMemberRepo(tem),
      sessions: new PgSessionRepo(tem),
      audit: new PgAuditRepo(tem),
    };
  }
}
