// WalletClient: one typed method per endpoint of the API, each a thin call of
// `request`, which signs, retries and raises typed errors (request-sender.ts);
// iterators over every list (client.wallets.list(...), pagination.ts) and
// waits for a status (client.waitFor, waiting.ts).
import { randomUUID } from 'node:crypto';
import { PageIterator, type ListParams } from './pagination.js';
import { RequestSender, type HttpMethod, type RequestOptions } from './request-sender.js';
import type { ApiKey, CreateApiKeyParams, CreatedApiKey, RevokedApiKey } from './resources/api-keys.js';
import type { BalanceList, GetBalancesParams } from './resources/balances.js';
import type { ChainList } from './resources/chains.js';
import type { CreateCustomerParams, Customer, ListCustomersParams, UpdateCustomerParams } from './resources/customers.js';
import type { CommitmentOverview } from './resources/commitment.js';
import type { Drip, DripStatus, RequestDripParams } from './resources/faucet.js';
import type { FeeQuote, QuoteFeeParams } from './resources/fees.js';
import type { CreateWalletParams, ListWalletsParams, Wallet } from './resources/wallets.js';
import type { Deposit, DepositStatus, ListDepositsParams, ListTransactionsParams, TransactionRecord } from './resources/deposits.js';
import type {
  CreateWithdrawalParams,
  CreatedWithdrawal,
  ListWithdrawalsParams,
  Withdrawal,
  WithdrawalRecord,
  WithdrawalStatus,
} from './resources/withdrawals.js';
import type {
  CreateWebhookEndpointParams,
  CreatedWebhookEndpoint,
  DeletedWebhookEndpoint,
  ListWebhookDeliveriesParams,
  RedeliverFailedParams,
  RedeliveredFailed,
  WebhookDelivery,
  RotatedWebhookEndpoint,
  UpdateWebhookEndpointParams,
  WebhookEndpoint,
} from './resources/webhook-endpoints.js';
import type { Page, PageParams, WithResponse } from './types.js';
import { DEPOSIT_LIFECYCLE, DRIP_LIFECYCLE, WITHDRAWAL_LIFECYCLE, waitForStatus, type WaitOptions } from './waiting.js';

/** The version of the @wallet-service/sdk package (sdk/package.json), sent in User-Agent. */
export const SDK_VERSION = '1.0.0';

export interface WalletClientOptions {
  /** Where the API lives, e.g. https://wallet.example.com (a trailing /v2 is allowed: …/v2 means the same). */
  baseUrl: string;
  /** key_id of the API key (sk_live_... or sk_test_...), sent in X-Service-Key. */
  keyId: string;
  /** The key's secret, shown once at creation; only used to sign, never sent. */
  secret: string;
  /** Defaults to the global fetch. */
  fetch?: typeof fetch;
  /** Retries after the first attempt of a call, for failures that are safe to repeat. Default 2. */
  maxRetries?: number;
  /** Per attempt, until the whole response body has arrived. Default 30000. */
  timeoutMs?: number;
  userAgent?: string;
  /** First backoff step; doubles per retry, with jitter. Default 250. */
  retryBaseDelayMs?: number;
  /** Backoff cap. Default 5000. */
  retryMaxDelayMs?: number;
  /** A 429 asking for a longer wait is raised as RateLimitError instead of waited out. Default 60. */
  maxRetryAfterSeconds?: number;
}

/** Options of a create: the key makes retries of it safe (docs/api.md#idempotency). */
export interface CreateOptions {
  /** 1–255 characters of A-Z a-z 0-9 _ -; a UUIDv4 is generated when omitted. */
  idempotencyKey?: string;
  signal?: AbortSignal;
}

export interface CallOptions {
  signal?: AbortSignal;
}

const segment = (id: string): string => encodeURIComponent(id);

/** What waitFor accepts: a withdrawal (as created, read or listed), a deposit, or a drip. */
export type WithdrawalRef = Pick<Withdrawal, 'id' | 'requested_at'>;
export type DepositRef = Pick<Deposit, 'id' | 'detected_at'>;
export type DripRef = Pick<Drip, 'drip_id'>;

export class WalletClient {
  private readonly sender: RequestSender;

  // --- Iterators over every list (pagination.ts): `for await (const w of client.wallets.list())` ---

  readonly apiKeys = {
    list: (params: ListParams<PageParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listApiKeys({ ...params, page, limit }, options), params.limit),
  };

  readonly webhookEndpoints = {
    list: (params: ListParams<PageParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listWebhookEndpoints({ ...params, page, limit }, options), params.limit),
    /** The endpoint's delivery log, newest first. */
    listDeliveries: (endpointId: string, params: ListParams<ListWebhookDeliveriesParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listWebhookDeliveries(endpointId, { ...params, page, limit }, options), params.limit),
  };

  readonly customers = {
    list: (params: ListParams<ListCustomersParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listCustomers({ ...params, page, limit }, options), params.limit),
  };

  readonly wallets = {
    list: (params: ListParams<ListWalletsParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listWallets({ ...params, page, limit }, options), params.limit),
  };

  readonly withdrawals = {
    list: (params: ListParams<ListWithdrawalsParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listWithdrawals({ ...params, page, limit }, options), params.limit),
    /** GET /v2/transactions/withdrawals (transactions:read). */
    listRecords: (params: ListParams<ListWithdrawalsParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listWithdrawalRecords({ ...params, page, limit }, options), params.limit),
  };

  readonly deposits = {
    list: (params: ListParams<ListDepositsParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listDeposits({ ...params, page, limit }, options), params.limit),
  };

  readonly transactions = {
    list: (params: ListParams<ListTransactionsParams> = {}, options: CallOptions = {}) =>
      this.iterate((page, limit) => this.listTransactions({ ...params, page, limit }, options), params.limit),
  };

  constructor(options: WalletClientOptions) {
    if (!options.keyId || !options.secret) throw new TypeError('keyId and secret are required');
    const fetchImpl = options.fetch ?? globalThis.fetch;
    this.sender = new RequestSender({
      baseUrl: options.baseUrl,
      keyId: options.keyId,
      secret: options.secret,
      fetch: fetchImpl,
      timeoutMs: options.timeoutMs ?? 30_000,
      userAgent: options.userAgent ?? `wallet-service-sdk-node/${SDK_VERSION} node/${process.version}`,
      retry: {
        maxRetries: options.maxRetries ?? 2,
        baseDelayMs: options.retryBaseDelayMs ?? 250,
        maxDelayMs: options.retryMaxDelayMs ?? 5_000,
        maxRetryAfterSeconds: options.maxRetryAfterSeconds ?? 60,
      },
      now: () => Date.now(),
    });
  }

  /**
   * Any endpoint, for those without a method yet. `path` includes /v2
   * (e.g. '/v2/chains'). A POST is retried only when `idempotencyKey` is given
   * or it is marked `safe` (a pure read).
   */
  request<T extends object>(method: HttpMethod, path: string, options?: RequestOptions): Promise<WithResponse<T>> {
    return this.sender.send<T>(method, path, options);
  }

  /**
   * Polls the resource until it has `status` (or a later step on its way to
   * success: a deposit SWEPT satisfies a wait for CONFIRMED) and returns it
   * as last read. Polls are at least a second apart, so no two are the same
   * signed request (REPLAY_DETECTED). Rejects with UnexpectedStatusError when
   * it ends in another final status (FAILED, CANCELLED, REJECTED) and with
   * WaitTimeoutError after `timeoutMs` (default two minutes); both carry the
   * resource as last read.
   */
  waitFor(withdrawal: WithdrawalRef, status: WithdrawalStatus, options?: WaitOptions): Promise<WithResponse<Withdrawal>>;
  waitFor(deposit: DepositRef, status: DepositStatus, options?: WaitOptions): Promise<WithResponse<Deposit>>;
  waitFor(drip: DripRef, status: DripStatus, options?: WaitOptions): Promise<WithResponse<Drip>>;
  waitFor(
    resource: WithdrawalRef | DepositRef | DripRef,
    status: WithdrawalStatus | DepositStatus | DripStatus,
    options: WaitOptions = {},
  ): Promise<WithResponse<Withdrawal> | WithResponse<Deposit> | WithResponse<Drip>> {
    if ('drip_id' in resource) return this.waitForDrip(resource.drip_id, status as DripStatus, options);
    if ('requested_at' in resource) return this.waitForWithdrawal(resource.id, status as WithdrawalStatus, options);
    if ('detected_at' in resource) return this.waitForDeposit(resource.id, status as DepositStatus, options);
    throw new TypeError('waitFor takes a withdrawal, a deposit or a drip');
  }

  /** waitFor by id: GET /v2/withdrawals/{id} once a second at most. */
  waitForWithdrawal(id: string, status: WithdrawalStatus, options: WaitOptions = {}): Promise<WithResponse<Withdrawal>> {
    const read = (signal: AbortSignal | undefined) => this.getWithdrawal(id, { signal });
    return waitForStatus({ read, lifecycle: WITHDRAWAL_LIFECYCLE, wanted: status, what: `withdrawal ${id}` }, options);
  }

  /** waitFor by id: GET /v2/transactions/deposits/{id} once a second at most. */
  waitForDeposit(id: string, status: DepositStatus, options: WaitOptions = {}): Promise<WithResponse<Deposit>> {
    const read = (signal: AbortSignal | undefined) => this.getDeposit(id, { signal });
    return waitForStatus({ read, lifecycle: DEPOSIT_LIFECYCLE, wanted: status, what: `deposit ${id}` }, options);
  }

  /** waitFor by id: GET /v2/sandbox/faucet/{drip_id} once a second at most. */
  waitForDrip(dripId: string, status: DripStatus, options: WaitOptions = {}): Promise<WithResponse<Drip>> {
    const read = (signal: AbortSignal | undefined) => this.getDrip(dripId, { signal });
    return waitForStatus({ read, lifecycle: DRIP_LIFECYCLE, wanted: status, what: `drip ${dripId}` }, options);
  }

  private iterate<T extends { id: string }>(fetchPage: (page: number, limit: number) => Promise<WithResponse<Page<T>>>, limit?: number): PageIterator<T> {
    return new PageIterator(fetchPage, limit);
  }

  /** POST that creates a resource: always carries an Idempotency-Key, the same on every retry. */
  protected create<T extends object>(path: string, body: unknown, options: CreateOptions = {}): Promise<WithResponse<T>> {
    return this.request<T>('POST', path, {
      body,
      idempotencyKey: options.idempotencyKey ?? randomUUID(),
      signal: options.signal,
    });
  }

  // --- Chains (docs/api.md#chains) ---

  /** The chains enabled on the key's network, with their assets. */
  listChains(options: CallOptions = {}): Promise<WithResponse<ChainList>> {
    return this.request('GET', '/v2/chains', options);
  }

  // --- API keys (docs/api.md#api-keys) ---

  /**
   * The response carries `secret`, shown this once. Not idempotent: the
   * service keeps no replay of a secret, so this call is never repeated when
   * its outcome is unknown (a 5xx or a lost connection). After such a failure,
   * list the keys to see whether it was created before trying again.
   */
  createApiKey(params: CreateApiKeyParams, options: CallOptions = {}): Promise<WithResponse<CreatedApiKey>> {
    return this.request('POST', '/v2/api-keys', { body: params, signal: options.signal });
  }

  /** Active, non-revoked keys of the workspace; never their secrets. */
  listApiKeys(params: PageParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<ApiKey>>> {
    return this.request('GET', '/v2/api-keys', { query: { page: params.page, limit: params.limit }, ...options });
  }

  /**
   * Takes effect on the very next request made with the key. A retried
   * revocation whose first attempt did land answers NotFoundError.
   */
  revokeApiKey(id: string, options: CallOptions = {}): Promise<WithResponse<RevokedApiKey>> {
    return this.request('DELETE', `/v2/api-keys/${segment(id)}`, options);
  }

  // --- Webhook endpoints (docs/api.md#webhook-endpoints) ---

  /**
   * The response carries `secret`, shown this once. Not idempotent, like
   * createApiKey: never repeated when its outcome is unknown; list the
   * endpoints to see whether it was created before trying again.
   */
  createWebhookEndpoint(params: CreateWebhookEndpointParams, options: CallOptions = {}): Promise<WithResponse<CreatedWebhookEndpoint>> {
    return this.request('POST', '/v2/webhooks', { body: params, signal: options.signal });
  }

  listWebhookEndpoints(params: PageParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<WebhookEndpoint>>> {
    return this.request('GET', '/v2/webhooks', { query: { page: params.page, limit: params.limit }, ...options });
  }

  getWebhookEndpoint(id: string, options: CallOptions = {}): Promise<WithResponse<WebhookEndpoint>> {
    return this.request('GET', `/v2/webhooks/${segment(id)}`, options);
  }

  updateWebhookEndpoint(id: string, params: UpdateWebhookEndpointParams, options: CallOptions = {}): Promise<WithResponse<WebhookEndpoint>> {
    return this.request('PATCH', `/v2/webhooks/${segment(id)}`, { body: params, ...options });
  }

  /** Refused with ConflictError (409) while a delivery to the endpoint is pending. */
  deleteWebhookEndpoint(id: string, options: CallOptions = {}): Promise<WithResponse<DeletedWebhookEndpoint>> {
    return this.request('DELETE', `/v2/webhooks/${segment(id)}`, options);
  }

  /** A new secret, shown once; the previous one stays valid for 24 hours. Not repeated when its outcome is unknown. */
  rotateWebhookSecret(id: string, options: CallOptions = {}): Promise<WithResponse<RotatedWebhookEndpoint>> {
    return this.request('POST', `/v2/webhooks/${segment(id)}/rotate-secret`, { signal: options.signal });
  }

  /** The endpoint's delivery log, newest first; filter by `status`. */
  listWebhookDeliveries(id: string, params: ListWebhookDeliveriesParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<WebhookDelivery>>> {
    return this.request('GET', `/v2/webhooks/${segment(id)}/deliveries`, {
      query: { page: params.page, limit: params.limit, status: params.status },
      ...options,
    });
  }

  /** One more attempt of a DELIVERED or FAILED delivery, same delivery id; a PENDING one is ConflictError (409). */
  redeliverWebhookDelivery(id: string, deliveryId: string, options: CallOptions = {}): Promise<WithResponse<WebhookDelivery>> {
    return this.request('POST', `/v2/webhooks/${segment(id)}/deliveries/${segment(deliveryId)}/redeliver`, { signal: options.signal });
  }

  /** Sends every FAILED delivery since a time once more (after an outage); call again while `more` is true. */
  redeliverFailedWebhookDeliveries(id: string, params: RedeliverFailedParams, options: CallOptions = {}): Promise<WithResponse<RedeliveredFailed>> {
    return this.request('POST', `/v2/webhooks/${segment(id)}/deliveries/redeliver-failed`, { body: params, signal: options.signal });
  }

  // --- Customers (docs/api.md#customers) ---

  /** A duplicate external_ref in the workspace and network raises ConflictError (409 CONFLICT). */
  createCustomer(params: CreateCustomerParams, options?: CreateOptions): Promise<WithResponse<Customer>> {
    return this.create('/v2/customers', params, options);
  }

  listCustomers(params: ListCustomersParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<Customer>>> {
    const { page, limit, status, external_ref } = params;
    return this.request('GET', '/v2/customers', { query: { page, limit, status, external_ref }, ...options });
  }

  getCustomer(id: string, options: CallOptions = {}): Promise<WithResponse<Customer>> {
    return this.request('GET', `/v2/customers/${segment(id)}`, options);
  }

  /**
   * Changes only the fields given. Like any PATCH without an Idempotency-Key
   * it is not retried after a lost connection or a 5xx: read the customer
   * back to learn whether it landed.
   */
  updateCustomer(id: string, params: UpdateCustomerParams, options: CallOptions = {}): Promise<WithResponse<Customer>> {
    return this.request('PATCH', `/v2/customers/${segment(id)}`, { body: params, ...options });
  }

  // --- Wallets (docs/api.md#wallets) ---

  /** Derives a new address on the key's network; the response has no external_ref. */
  createWallet(params: CreateWalletParams, options?: CreateOptions): Promise<WithResponse<Wallet>> {
    return this.create('/v2/wallets', params, options);
  }

  /** Without external_ref; ARCHIVED wallets only when `status: 'ARCHIVED'` is asked for. */
  listWallets(params: ListWalletsParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<Wallet>>> {
    const { page, limit, status, chain, asset, customer_id } = params;
    return this.request('GET', '/v2/wallets', { query: { page, limit, status, chain, asset, customer_id }, ...options });
  }

  /** The only answer that carries the wallet's external_ref. */
  getWallet(id: string, options: CallOptions = {}): Promise<WithResponse<Wallet>> {
    return this.request('GET', `/v2/wallets/${segment(id)}`, options);
  }

  /**
   * Leaves the wallet out of listWallets; it stays monitored and credited.
   * Archiving an archived wallet returns it again, so the call carries a
   * generated Idempotency-Key, which lets it be retried like a create.
   */
  archiveWallet(id: string, options: CallOptions = {}): Promise<WithResponse<Wallet>> {
    return this.request('POST', `/v2/wallets/${segment(id)}/archive`, { idempotencyKey: randomUUID(), signal: options.signal });
  }

  // --- Withdrawals (docs/api.md#withdrawals) ---

  /**
   * Locks `amount` from available at once; the chain-worker sends the net.
   * Every retry of the call carries the same Idempotency-Key (pass your own
   * to make it survive a restart of your process): a replay answers the
   * original withdrawal, never a second one.
   */
  createWithdrawal(params: CreateWithdrawalParams, options?: CreateOptions): Promise<WithResponse<CreatedWithdrawal>> {
    return this.create('/v2/withdrawals', params, options);
  }

  /** Withdrawals of the key's network, newest request first. */
  listWithdrawals(params: ListWithdrawalsParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<Withdrawal>>> {
    const { page, limit, status, chain } = params;
    return this.request('GET', '/v2/withdrawals', { query: { page, limit, status, chain }, ...options });
  }

  /** One withdrawal with its destination; NOT_FOUND for another workspace's or the other network side's. */
  getWithdrawal(id: string, options: CallOptions = {}): Promise<WithResponse<Withdrawal>> {
    return this.request('GET', `/v2/withdrawals/${segment(id)}`, options);
  }

  /** From PENDING_APPROVAL, PENDING (not picked up yet) or UNDER_REVIEW; otherwise WITHDRAWAL_NOT_CANCELLABLE (422). */
  cancelWithdrawal(id: string, options: CallOptions = {}): Promise<WithResponse<Withdrawal>> {
    return this.request('POST', `/v2/withdrawals/${segment(id)}/cancel`, { signal: options.signal });
  }

  /** GET /v2/transactions/withdrawals (transactions:read): records with fee_record, newest request first. */
  listWithdrawalRecords(params: ListWithdrawalsParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<WithdrawalRecord>>> {
    const { page, limit, status, chain } = params;
    return this.request('GET', '/v2/transactions/withdrawals', { query: { page, limit, status, chain }, ...options });
  }

  // --- Deposits and transactions (docs/api.md#deposits) ---

  /** Deposits of the key's network, newest first. */
  listDeposits(params: ListDepositsParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<Deposit>>> {
    const { page, limit, status, chain, wallet_id, customer_id } = params;
    return this.request('GET', '/v2/transactions/deposits', { query: { page, limit, status, chain, wallet_id, customer_id }, ...options });
  }

  /** One deposit; NOT_FOUND for another workspace's or the other network side's. */
  getDeposit(id: string, options: CallOptions = {}): Promise<WithResponse<Deposit>> {
    return this.request('GET', `/v2/transactions/deposits/${segment(id)}`, options);
  }

  /** Deposits and withdrawals together, newest first. */
  listTransactions(params: ListTransactionsParams = {}, options: CallOptions = {}): Promise<WithResponse<Page<TransactionRecord>>> {
    const { page, limit, type, chain } = params;
    return this.request('GET', '/v2/transactions', { query: { page, limit, type, chain }, ...options });
  }

  // --- Balances (docs/api.md#balances) ---

  /** One row per asset the workspace ever held on the key's network; amounts stay decimal strings. */
  getBalances(params: GetBalancesParams = {}, options: CallOptions = {}): Promise<WithResponse<BalanceList>> {
    const { chain, asset } = params;
    return this.request('GET', '/v2/balances', { query: { chain, asset }, ...options });
  }

  // --- Fees (docs/api.md#fee-quotes) ---

  /**
   * An indicative fee; creates nothing. The server does not deduplicate
   * quotes, so none carries an Idempotency-Key, but as a pure read it is
   * retried like a GET. A too small amount answers `viable: false`, not an error.
   */
  quoteFee(params: QuoteFeeParams, options: CallOptions = {}): Promise<WithResponse<FeeQuote>> {
    const { direction, chain, asset, amount, mode } = params;
    return this.request('POST', '/v2/fees/quote', {
      body: { direction, chain, asset, amount, mode },
      safe: true,
      signal: options.signal,
    });
  }

  /** The workspace's monthly fee commitment (fees:read): read-only, set up by the operator. */
  getCommitment(options: CallOptions = {}): Promise<WithResponse<CommitmentOverview>> {
    return this.request('GET', '/v2/commitment', options);
  }

  // --- Sandbox faucet (docs/api.md#sandbox-faucet) ---

  /**
   * Queues test assets for a sandbox wallet (test keys only); the drip
   * arrives as an ordinary deposit. Every retry carries the same
   * Idempotency-Key: a replay answers the original drip, never a second one.
   */
  requestDrip(params: RequestDripParams, options?: CreateOptions): Promise<WithResponse<Drip>> {
    return this.create('/v2/sandbox/faucet', params, options);
  }

  /** The drip and each item's progress; NOT_FOUND for another workspace's. */
  getDrip(id: string, options: CallOptions = {}): Promise<WithResponse<Drip>> {
    return this.request('GET', `/v2/sandbox/faucet/${segment(id)}`, options);
  }
}
