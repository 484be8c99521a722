// Public surface of the client SDK, shipped to integrators as the package's
// sdk entry point. Everything here stands alone: node built-ins and fetch only.
export {
  WalletClient,
  SDK_VERSION,
  type WalletClientOptions,
  type CreateOptions,
  type CallOptions,
  type WithdrawalRef,
  type DepositRef,
  type DripRef,
} from './client.js';
export { PageIterator, ITERATION_PAGE_SIZE, type ListParams, type PageFetcher } from './pagination.js';
export {
  waitForStatus,
  hasReached,
  WITHDRAWAL_LIFECYCLE,
  DEPOSIT_LIFECYCLE,
  DRIP_LIFECYCLE,
  DEFAULT_WAIT_TIMEOUT_MS,
  MIN_POLL_INTERVAL_MS,
  type Lifecycle,
  type PollClock,
  type StatusWait,
  type WaitOptions,
} from './waiting.js';
export type { HttpMethod, QueryValue, RequestOptions } from './request-sender.js';
export {
  WalletApiError,
  InvalidRequestError,
  AuthenticationError,
  PermissionError,
  NotFoundError,
  ConflictError,
  UnprocessableError,
  RateLimitError,
  ApiServerError,
  ApiConnectionError,
  ApiTimeoutError,
  WaitTimeoutError,
  UnexpectedStatusError,
  API_ERROR_CODES,
  type ApiErrorCode,
  type ClientErrorCode,
  type ErrorCode,
  type WaitErrorInit,
  type WalletApiErrorInit,
} from './errors.js';
export {
  verifyWebhook,
  signWebhook,
  WebhookVerificationError,
  WEBHOOK_TOLERANCE_SECONDS,
  WEBHOOK_EVENTS,
  type VerifyWebhookInput,
  type VerifiedWebhook,
  type WebhookEventName,
  type WebhookHeaders,
  type WebhookVerificationReason,
} from './webhooks.js';
export { signRequest, authHeaders, sha256Hex, type SignInput } from './signing.js';
export type {
  Asset,
  BaseChain,
  DateTimeString,
  DecimalString,
  Page,
  PageParams,
  ResolvedChain,
  ResponseInfo,
  WithResponse,
} from './types.js';
export type { Balance, BalanceList, GetBalancesParams } from './resources/balances.js';
export type { Chain, ChainAsset, ChainList } from './resources/chains.js';
export type {
  CreateCustomerParams,
  Customer,
  CustomerStatus,
  ListCustomersParams,
  UpdateCustomerParams,
} from './resources/customers.js';
export type { CreateWalletParams, ListWalletsParams, Wallet, WalletStatus } from './resources/wallets.js';
export type {
  CreateWithdrawalParams,
  CreatedWithdrawal,
  ListWithdrawalsParams,
  Withdrawal,
  WithdrawalRecord,
  WithdrawalStatus,
} from './resources/withdrawals.js';
export type {
  Deposit,
  DepositStatus,
  FeeRecord,
  ListDepositsParams,
  ListTransactionsParams,
  TransactionRecord,
  TransactionType,
} from './resources/deposits.js';
export type { AdjustmentStatus, Commitment, CommitmentAdjustment, CommitmentOverview, CommitmentPeriod, CommitmentStatus } from './resources/commitment.js';
export type { Drip, DripItemStatus, DripStatus, RequestDripParams } from './resources/faucet.js';
export type { FeeDirection, FeeMode, FeeQuote, FeeRule, FeeWarning, QuoteFeeParams } from './resources/fees.js';
export type {
  CreateWebhookEndpointParams,
  CreatedWebhookEndpoint,
  DeletedWebhookEndpoint,
  ListWebhookDeliveriesParams,
  RedeliverFailedParams,
  RedeliveredFailed,
  RotatedWebhookEndpoint,
  UpdateWebhookEndpointParams,
  WebhookDelivery,
  WebhookDeliveryStatus,
  WebhookEndpoint,
} from './resources/webhook-endpoints.js';
export {
  API_KEY_SCOPES,
  type ApiKey,
  type CreateApiKeyParams,
  type CreatedApiKey,
  type Permission,
  type RevokedApiKey,
  type Scope,
} from './resources/api-keys.js';
