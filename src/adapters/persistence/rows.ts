// Raw rows of the hot paths into domain objects, without the ORM's identity
// map (the request path reads a key, its workspace and the network switches
// on every call). Timestamps may come as Date or text, arrays as JS arrays or
// PostgreSQL literals, whichever the driver hands over.
import type { ApiKey } from '../../domain/auth/api-key.js';
import type { Workspace } from '../../domain/workspaces/workspace.js';

export const rowDate = (v: unknown): Date => (v instanceof Date ? v : new Date(String(v)));
export const rowDateOrNull = (v: unknown): Date | null => (v === null || v === undefined ? null : rowDate(v));

/** A text[] column: a JS array, or a literal such as {a,"b c"} (quoted elements unescaped). */
export function rowTextArray(v: unknown): string[] {
  if (Array.isArray(v)) return v.map(String);
  const text = String(v ?? '{}');
  const inner = text.slice(1, -1);
  if (inner === '') return [];
  const out: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|([^,]+)/g;
  for (let m = re.exec(inner); m; m = re.exec(inner)) out.push(m[1] !== undefined ? m[1].replace(/\\(.)/g, '$1') : m[2]!);
  return out;
}

/** A `workspaces` row, its columns under `prefix` (a join's aliases). */
export const workspaceFromRow = (row: Record<string, unknown>, prefix = ''): Workspace => ({
  id: String(row[`${prefix}id`]),
  name: String(row[`${prefix}name`]),
  status: row[`${prefix}status`] as Workspace['status'],
  withdrawalsFrozen: row[`${prefix}withdrawals_frozen`] === true,
  contactEmail: (row[`${prefix}contact_email`] as string | null | undefined) ?? null,
  createdAt: rowDate(row[`${prefix}created_at`]),
  updatedAt: rowDate(row[`${prefix}updated_at`]),
});

export const apiKeyFromRow = (row: Record<string, unknown>): ApiKey => ({
  id: String(row.id),
  workspaceId: String(row.workspace_id),
  keyId: String(row.key_id),
  label: String(row.label),
  scopes: rowTextArray(row.scopes) as ApiKey['scopes'],
  permission: (row.permission as ApiKey['permission'] | undefined) ?? null,
  allowedIps: rowTextArray(row.allowed_ips),
  isTest: row.is_test === true,
  secretCiphertext: String(row.secret_ciphertext),
  lastUsedAt: rowDateOrNull(row.last_used_at),
  expiresAt: rowDateOrNull(row.expires_at),
  revokedAt: rowDateOrNull(row.revoked_at),
  createdAt: rowDate(row.created_at),
});
