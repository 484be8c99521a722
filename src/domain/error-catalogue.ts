// Every error code the API answers with: its HTTP status, what it means and
// what a client should do. One table: the HTTP adapter takes its statuses
// from here, docs/errors.md is generated from it, and a test checks that no
// code of the API is missing. Codes of features not built yet are listed
// already, so clients can prepare for them.
export interface ErrorEntry {
  status: number;
  meaning: string;
  action: string;
}

const FIX = 'Fix the request; sending it again unchanged gets the same answer.';
const FAUCET_LIMIT = 'Ask for less, or wait for the window; the message says which limit.';

export const ERROR_CATALOGUE = {
  VALIDATION_ERROR: { status: 400, meaning: 'A field, parameter or header is missing or malformed; `details` lists each as `{ path, message }`.', action: FIX },
  INVALID_JSON: { status: 400, meaning: 'The body is not valid JSON (or not UTF-8).', action: FIX },
  IDEMPOTENCY_KEY_INVALID: { status: 400, meaning: 'The Idempotency-Key header is not 1 to 255 characters of A-Z a-z 0-9 _ -.', action: FIX },
  INVALID_DESTINATION_ADDRESS: { status: 400, meaning: 'The destination is not a valid address of the chain (format or checksum).', action: FIX },
  FAUCET_INVALID_ASSET: { status: 400, meaning: 'A faucet item names an asset that is not on the chain.', action: FIX },
  FAUCET_INVALID_AMOUNT: { status: 400, meaning: 'A faucet item amount is malformed, zero or negative.', action: FIX },
  FAUCET_NO_ASSETS: { status: 400, meaning: 'A faucet request asks for no asset.', action: FIX },
  MISSING_AUTH_HEADERS: { status: 401, meaning: 'X-Service-Key, X-Service-Timestamp or X-Service-Signature is missing.', action: 'Sign the request (docs/api.md#authentication).' },
  TIMESTAMP_EXPIRED: { status: 401, meaning: 'X-Service-Timestamp is not Unix seconds within 5 minutes of the server clock.', action: 'Sync the clock (NTP) and sign again with the current time.' },
  INVALID_SIGNATURE: { status: 401, meaning: 'The signature does not match the request as received.', action: 'Sign the exact method, path with query and body bytes sent.' },
  REPLAY_DETECTED: { status: 401, meaning: 'This exact signature was already used.', action: 'Sign every attempt anew (a new timestamp gives a new signature).' },
  INVALID_API_KEY: { status: 401, meaning: 'The key id is unknown or the key was revoked.', action: 'Use an active key.' },
  API_KEY_EXPIRED: { status: 401, meaning: 'The key is past its expires_at.', action: 'Use an active key.' },
  UNAUTHORIZED: { status: 401, meaning: 'The request could not be authenticated.', action: 'Sign the request with an active key.' },
  WORKSPACE_NOT_FOUND: { status: 401, meaning: 'The key belongs to a workspace that does not exist.', action: 'Contact the operator.' },
  INSUFFICIENT_SCOPE: { status: 403, meaning: 'The key lacks the scope the endpoint needs, or tries to grant or widen what it does not hold.', action: 'Use a key holding the scope (docs/api.md#scopes).' },
  IP_NOT_ALLOWED: { status: 403, meaning: "The source address is outside the key's allowlist.", action: 'Call from an allowed address, or use another key.' },
  FORBIDDEN: { status: 403, meaning: 'The operation is not allowed for this key.', action: 'Do not retry.' },
  WORKSPACE_INACTIVE: { status: 403, meaning: 'The workspace has been deactivated by the operator.', action: 'Contact the operator.' },
  FAUCET_ONLY_SANDBOX: { status: 403, meaning: 'A live key called the faucet.', action: 'Use a test key.' },
  FAUCET_NOT_SANDBOX: { status: 403, meaning: 'The faucet is not available on this deployment.', action: 'Do not retry.' },
  FEATURE_NOT_AVAILABLE: { status: 403, meaning: 'The feature is not available to this workspace.', action: 'Contact the operator.' },
  SYSTEM_WORKSPACE_PROTECTED: { status: 403, meaning: "The service's own workspace cannot be changed this way.", action: 'Do not retry.' },
  NOT_FOUND: { status: 404, meaning: 'No such route, or no such resource in this workspace and network.', action: 'Check the path and id (another workspace\'s resources are 404 too).' },
  CONFLICT: { status: 409, meaning: 'The resource conflicts with an existing one (e.g. a duplicate customer external_ref).', action: 'Read the existing resource instead of creating it.' },
  IDEMPOTENCY_CONFLICT: { status: 409, meaning: 'A request with this Idempotency-Key is still in flight.', action: 'Retry later with the same key and body.' },
  PAYLOAD_TOO_LARGE: { status: 413, meaning: 'The body is over 64 KiB (or the headers over 16 KiB, then status 431).', action: 'Send less.' },
  UNSUPPORTED_MEDIA_TYPE: { status: 415, meaning: 'The body is not uncompressed application/json.', action: 'Send Content-Type: application/json.' },
  UNPROCESSABLE: { status: 422, meaning: 'The request is well-formed but breaks a rule (the message says which, e.g. the key limit).', action: 'Change the request or the state it depends on.' },
  IDEMPOTENCY_MISMATCH: { status: 422, meaning: 'This Idempotency-Key was used with another body.', action: 'Use a new key for a new request.' },
  INSUFFICIENT_BALANCE: { status: 422, meaning: 'The available balance is below the amount.', action: 'Wait for deposits, or ask for less.' },
  CHAIN_NOT_ENABLED: { status: 422, meaning: 'The network is switched off for new wallets and withdrawals.', action: 'Use another chain, or wait until the operator enables it.' },
  DESTINATION_IS_INTERNAL: { status: 422, meaning: 'The withdrawal destination is an address the service manages.', action: 'Send to an external address.' },
  WITHDRAWALS_FROZEN: { status: 422, meaning: "The workspace's withdrawals are frozen for compliance.", action: 'Contact the operator.' },
  WITHDRAWAL_NOT_CANCELLABLE: { status: 422, meaning: 'The withdrawal is past the states that can be cancelled.', action: 'Do not retry.' },
  AMOUNT_TOO_SMALL: { status: 422, meaning: 'After the fee nothing would be left to send.', action: 'Ask for more.' },
  WITHDRAWAL_POLICY_VIOLATION: { status: 422, meaning: "The workspace's mainnet withdrawal policy blocks it; `details.reason` says which rule.", action: 'Change the destination or amount, or have the owner change the policy.' },
  WEBHOOK_LIMIT_REACHED: { status: 422, meaning: 'The workspace already has 10 webhook endpoints on this network.', action: 'Delete one first.' },
  FAUCET_ADDRESS_NOT_FOUND: { status: 422, meaning: 'The address is not a sandbox wallet of the workspace.', action: FIX },
  FAUCET_AMOUNT_OVER_CAP: { status: 422, meaning: 'A faucet item exceeds the per-asset cap.', action: FAUCET_LIMIT },
  FAUCET_TOO_MANY_ITEMS: { status: 422, meaning: 'More assets than one drip may carry.', action: FAUCET_LIMIT },
  FAUCET_DUPLICATE_ASSET: { status: 422, meaning: 'An asset appears twice in one drip.', action: 'Ask for it once, with the total.' },
  FAUCET_NATIVE_REQUIRES_DEPOSIT: { status: 422, meaning: 'Native currency is dripped only after a confirmed sandbox token deposit.', action: 'Deposit a sandbox token first.' },
  FAUCET_NATIVE_BUDGET_EXCEEDED: { status: 422, meaning: 'The rolling native budget of the asset is spent; the message states usage and window.', action: FAUCET_LIMIT },
  FAUCET_RATE_LIMITED: { status: 422, meaning: 'Too many drips in the window.', action: FAUCET_LIMIT },
  FAUCET_DISPENSER_EXHAUSTED: { status: 422, meaning: "The faucet's dispenser lacks native currency.", action: 'Retry later, or ask for tokens only.' },
  RATE_LIMITED: { status: 429, meaning: 'Too many requests for this key, or too many failed authentications from this address.', action: 'Wait the Retry-After seconds, then retry.' },
  INTERNAL_ERROR: { status: 500, meaning: 'An unexpected failure; the body names the request id to quote.', action: 'Retry creates with the same Idempotency-Key; report the request id.' },
  DATABASE_ERROR: { status: 503, meaning: 'The database is unavailable.', action: 'Retry later (creates with the same Idempotency-Key).' },
  SERVICE_UNAVAILABLE: { status: 503, meaning: 'Something the request needs is not ready yet (the keys of new deposit accounts are being prepared); nothing was created.', action: 'Retry after the Retry-After seconds, with the same Idempotency-Key.' },
} as const satisfies Record<string, ErrorEntry>;

export type ErrorCode = keyof typeof ERROR_CATALOGUE;
export const ERROR_CODES = Object.keys(ERROR_CATALOGUE) as ErrorCode[];
export const statusOf = (code: ErrorCode): number => ERROR_CATALOGUE[code].status;
