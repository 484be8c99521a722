// The baseline of the signed-read rows of `npm run bench -- reads`: a bare
// express route doing by hand the least a signed read must do, as its own
// process: one indexed read of the key through `pg`, one insert for replay
// protection, and the same JSON as GET /v2/chains. No ORM, no HMAC, no
// validation, no logging: what the machine and PostgreSQL give a route.
// POST /bare-wallet is the baseline of wallet creation (bench/scale.ts): the
// same key read and replay insert, the next address derived by the libraries
// alone from a cached account node, one insert. Its statements are prepared
// (named), as the api prepares its admission: what PostgreSQL spares a route
// that does not make it parse and plan the same text on every request.
import { secp256k1 } from '@noble/curves/secp256k1.js';
import { HDKey } from '@scure/bip32';
import { mnemonicToSeedSync } from '@scure/bip39';
import express from 'express';
import pg from 'pg';
import { bytesToHex } from 'viem';
import { publicKeyToAddress } from 'viem/accounts';

const pool = new pg.Pool({ connectionString: process.env.DATABASE_URL, max: 10 });
const body = process.env.BARE_BODY ?? '{}';
const REPLAY_INSERT = `insert into request_signatures (key_id, signature, expires_at) values ($1, $2, now() + interval '10 minutes') on conflict do nothing`;
const app = express();
app.get('/bare', async (req, res) => {
  const keyId = req.get('X-Service-Key') ?? '';
  const signature = req.get('X-Service-Signature') ?? '';
  const { rows } = await pool.query({ name: 'bare_key', text: 'select workspace_id, secret_ciphertext from api_keys where key_id = $1', values: [keyId] });
  if (rows.length === 0) {
    res.status(401).json({ error: 'unknown key', code: 'INVALID_API_KEY' });
    return;
  }
  await pool.query({ name: 'bare_replay', text: REPLAY_INSERT, values: [keyId, signature] });
  res.type('application/json').send(body);
});
const account = process.env.BARE_SEED ? HDKey.fromMasterSeed(mnemonicToSeedSync(process.env.BARE_SEED)).derive("m/44'/60'/999'/0") : null;
let nextIndex = 0;
await pool.query('create table if not exists bare_wallets (id uuid primary key default gen_random_uuid(), workspace_id uuid not null, address text not null unique, derivation_index int not null)');
app.post('/bare-wallet', async (req, res) => {
  const keyId = req.get('X-Service-Key') ?? '';
  const signature = req.get('X-Service-Signature') ?? '';
  const { rows } = await pool.query<{ workspace_id: string }>({ name: 'bare_wallet_key', text: 'select workspace_id from api_keys where key_id = $1', values: [keyId] });
  if (rows.length === 0 || !account) {
    res.status(401).json({ error: 'unknown key', code: 'INVALID_API_KEY' });
    return;
  }
  await pool.query({ name: 'bare_replay', text: REPLAY_INSERT, values: [keyId, signature] });
  const index = nextIndex++;
  const address = publicKeyToAddress(bytesToHex(secp256k1.Point.fromBytes(account.deriveChild(index).publicKey!).toBytes(false)));
  const inserted = await pool.query<{ id: string }>({
    name: 'bare_wallet_insert',
    text: 'insert into bare_wallets (workspace_id, address, derivation_index) values ($1, $2, $3) returning id',
    values: [rows[0]!.workspace_id, address, index],
  });
  res.status(201).json({ id: inserted.rows[0]!.id, address });
});
const server = app.listen(Number(process.env.PORT), '127.0.0.1', () => console.log('bare listening'));
process.on('SIGTERM', () => server.close(() => void pool.end().then(() => process.exit(0))));
