// Business failures carry a stable code from the error catalogue
// (error-catalogue.ts, docs/errors.md), which also gives each its HTTP
// status. Messages are human text only.
import type { ErrorCode } from './error-catalogue.js';

export type { ErrorCode } from './error-catalogue.js';

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
