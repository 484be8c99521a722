// Business failures carry a stable code (docs/api.md#error-codes); the HTTP
// adapter maps code → status in one table. Messages are human text only.
export type ErrorCode =
  | 'VALIDATION_ERROR'
  | 'INVALID_JSON'
  | 'PAYLOAD_TOO_LARGE'
  | 'UNSUPPORTED_MEDIA_TYPE'
  | 'MISSING_AUTH_HEADERS'
  | 'TIMESTAMP_EXPIRED'
  | 'INVALID_SIGNATURE'
  | 'REPLAY_DETECTED'
  | 'INVALID_API_KEY'
  | 'API_KEY_EXPIRED'
  | 'UNAUTHORIZED'
  | 'WORKSPACE_NOT_FOUND'
  | 'INSUFFICIENT_SCOPE'
  | 'IP_NOT_ALLOWED'
  | 'FORBIDDEN'
  | 'WORKSPACE_INACTIVE'
  | 'SYSTEM_WORKSPACE_PROTECTED'
  | 'FEATURE_NOT_AVAILABLE'
  | 'NOT_FOUND'
  | 'CONFLICT'
  | 'IDEMPOTENCY_CONFLICT'
  | 'IDEMPOTENCY_MISMATCH'
  | 'IDEMPOTENCY_KEY_INVALID'
  | 'UNPROCESSABLE'
  | 'CHAIN_NOT_ENABLED'
  | 'INSUFFICIENT_BALANCE'
  | 'RATE_LIMITED'
  | 'INTERNAL_ERROR'
  | 'DATABASE_ERROR';

export interface ErrorDetail {
  path: string;
  message: string;
}

export class DomainError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details?: Record<string, unknown> | ErrorDetail[],
  ) {
    super(message);
    this.name = 'DomainError';
  }
}

export const isDomainError = (e: unknown): e is DomainError => e instanceof DomainError;
