// The authentication hot path: one query reads a key and its workspace, with
// the version admission checks (ADR 0008). What was read is kept per process,
// so a signed request makes one round trip before its own work (admission),
// not two: the admission statement records nothing for a kept copy the
// database no longer matches, and the request is then checked on a fresh
// read, so a revocation or a deactivation still holds from the next request.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { Credential, CredentialStore } from '../../domain/ports.js';
import { CREDENTIAL_VERSION_SQL } from './credential-version.js';
import { apiKeyFromRow, workspaceFromRow } from './rows.js';
import { executeInline } from './sql.js';

/** Keys kept per process; past it the least recently used is dropped (a key not kept is read, nothing more). */
const KEPT = 10_000;

export class PgCredentialStore implements CredentialStore {
  private readonly kept = new Map<string, Credential>();

  constructor(private readonly orm: MikroORM) {}

  async findCredential(keyId: string, opts: { fresh?: boolean } = {}): Promise<Credential | null> {
    const kept = opts.fresh ? undefined : this.kept.get(keyId);
    if (kept) {
      // Kept longest when used most: a hit moves the key to the end the oldest are dropped from.
      this.kept.delete(keyId);
      this.kept.set(keyId, kept);
      return { ...kept, remembered: true };
    }
    const rows = await executeInline<Record<string, unknown>>(
      this.orm.em,
      `select k.*, w.id as w_id, w.name as w_name, w.status as w_status, w.withdrawals_frozen as w_withdrawals_frozen,
              w.contact_email as w_contact_email, w.created_at as w_created_at, w.updated_at as w_updated_at,
              ${CREDENTIAL_VERSION_SQL} as credential_version
         from api_keys k left join workspaces w on w.id = k.workspace_id
        where k.key_id = ?`,
      [keyId],
      undefined,
    );
    const row = rows[0];
    this.kept.delete(keyId);
    if (!row) return null;
    const credential: Credential = {
      key: apiKeyFromRow(row),
      workspace: row.w_id ? workspaceFromRow(row, 'w_') : null,
      version: String(row.credential_version),
      remembered: false,
    };
    if (this.kept.size >= KEPT) this.kept.delete(this.kept.keys().next().value!);
    this.kept.set(keyId, credential);
    return credential;
  }
}
