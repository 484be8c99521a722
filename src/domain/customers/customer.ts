// A customer (sub-account) of a workspace (docs/api.md#customers): an end-user of
// the client, known by the client's opaque external_ref, unique per workspace
// and network side. ARCHIVED retires the label, never the monitoring.
import type { NetworkSide } from '../money/networks.js';

export type CustomerStatus = 'ACTIVE' | 'ARCHIVED';
export const CUSTOMER_STATUSES: readonly CustomerStatus[] = ['ACTIVE', 'ARCHIVED'];

export const EXTERNAL_REF_MAX = 255;
export const LABEL_MAX = 255;
/** metadata: a JSON object of at most this many bytes serialised (docs/api.md#customers). */
export const METADATA_MAX_BYTES = 8 * 1024;
export const METADATA_MAX_KEYS = 50;

export interface Customer {
  id: string;
  workspaceId: string;
  side: NetworkSide;
  externalRef: string;
  label: string | null;
  metadata: Record<string, unknown> | null;
  status: CustomerStatus;
  createdAt: Date;
  updatedAt: Date;
}

export interface CustomerFilter {
  status?: CustomerStatus;
  externalRef?: string;
}

export interface CustomerPatch {
  label?: string | null;
  metadata?: Record<string, unknown> | null;
  status?: CustomerStatus;
}
