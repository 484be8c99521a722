// What a credential's version is made of, in SQL: the key's row but its last
// use (written by admission itself) and its workspace's status. The credential
// read and the admission statement compute it alike (ADR 0008).
export const CREDENTIAL_VERSION_SQL = `md5((to_jsonb(k) - 'last_used_at')::text || '|' || coalesce(w.status, ''))`;
