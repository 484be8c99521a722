// What the SDK unit tests share: a client against the fake API, a helper to
// catch its typed errors, and the resources the fake answers with.
import { WalletClient, type WalletApiError, type WalletClientOptions } from '../../../src/sdk/index.js';
import { startFakeApi, type FakeApi, type Received, type Reply } from './fake-wallet-api.js';

export const SECRET = 'test-secret-4a7f2c';
export const KEY_ID = 'sk_test_client';

/** Runs `run` with a client of a fresh fake API answering with `reply`; retries wait 10 ms unless told otherwise. */
export async function withApi(
  reply: (req: Received, index: number) => Reply,
  run: (client: WalletClient, api: FakeApi) => Promise<void>,
  options: Partial<WalletClientOptions> = {},
): Promise<void> {
  const api = await startFakeApi(SECRET, reply);
  try {
    await run(new WalletClient({ baseUrl: api.baseUrl, keyId: KEY_ID, secret: SECRET, retryBaseDelayMs: 10, ...options }), api);
  } finally {
    await api.close();
  }
}

/** The error a call failed with; fails the test when the call succeeded. */
export const failureOf = async (p: Promise<unknown>): Promise<WalletApiError> => {
  try {
    await p;
  } catch (err) {
    return err as WalletApiError;
  }
  throw new Error('the call succeeded');
};

export const CUSTOMER = {
  id: '5d3f1a2b-8c4e-4f6a-9b7c-1d2e3f4a5b6c',
  external_ref: 'user-42',
  label: null,
  metadata: { tier: 'gold' },
  status: 'ACTIVE',
  created_at: '2026-01-01T00:00:00.000Z',
  updated_at: '2026-01-01T00:00:00.000Z',
};
