// The baseline of the signed-read rows of `npm run bench -- reads`: a bare
// express route doing by hand the least a signed read must do, as its own
// process: one indexed read of the key through `pg`, one insert for replay
// protection, and the same JSON as GET /v2/chains. No ORM, no HMAC, no
// validation, no logging: what the machine and PostgreSQL give a route.
import express from 'express';
import pg from 'pg';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const body = process.env.BARE_BODY ?? '{}';
const app = express();
app.get('/bare', async (req, res) => {
  const keyId = req.get('X-Service-Key') ?? '';
  const signature = req.get('X-Service-Signature') ?? '';
  const { rows } = await pool.query('select workspace_id, secret_ciphertext from api_keys where key_id = $1', [keyId]);
  if (rows.length === 0) {
    res.status(401).json({ error: 'unknown key', code: 'INVALID_API_KEY' });
    return;
  }
  await pool.query(`insert into request_signatures (key_id, signature, expires_at) values ($1, $2, now() + interval '10 minutes') on conflict do nothing`, [keyId, signature]);
  res.type('application/json').send(body);
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare listening'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
