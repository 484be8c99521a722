// What a credential's version is made of, in SQL: every column of the key
// that authentication or the Principal reads (not its label, creation or last
// use), and its workspace's status. The credential read and the admission
// statement compute it alike (ADR 0008). Times enter as epoch seconds and
// arrays as their text, so the version does not depend on the session's time
// zone or date style. A new column that authentication reads belongs here.
const part = (expr: string): string => `coalesce((${expr})::text, '-')`;
export const CREDENTIAL_VERSION_SQL = `md5(concat_ws('|', ${[
  'k.id',
  'k.workspace_id',
  'k.key_id',
  'k.scopes',
  'k.permission',
  'k.allowed_ips',
  'k.is_test',
  'k.secret_ciphertext',
  'extract(epoch from k.expires_at)',
  'extract(epoch from k.revoked_at)',
  'w.id',
  'w.status',
]
  .map(part)
  .join(', ')}))`;
