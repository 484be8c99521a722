// Types of the customer (sub-account) endpoints (docs/api.md#customers).
import type { DateTimeString, PageParams } from '../types.js';

export type CustomerStatus = 'ACTIVE' | 'ARCHIVED';

export interface Customer {
  id: string;
  /** The client's opaque id for the end-user (never personal data); unique within workspace and network. */
  external_ref: string;
  /** Display name, not for personal data. */
  label: string | null;
  /** Free-form, opaque to the service. */
  metadata: Record<string, unknown> | null;
  /** ARCHIVED retires the sub-account; its addresses stay monitored. */
  status: CustomerStatus;
  created_at: DateTimeString;
  updated_at: DateTimeString;
}

/** A duplicate `external_ref` in the workspace and network is a 409 CONFLICT. */
export interface CreateCustomerParams {
  /** At most 255 characters. */
  external_ref: string;
  /** At most 255 characters. */
  label?: string | null;
  metadata?: Record<string, unknown> | null;
}

export interface ListCustomersParams extends PageParams {
  status?: CustomerStatus;
  external_ref?: string;
}

/** Only the fields given change; null clears `label` or `metadata`. */
export interface UpdateCustomerParams {
  label?: string | null;
  metadata?: Record<string, unknown> | null;
  status?: CustomerStatus;
}
