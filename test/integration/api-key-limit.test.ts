// At most 100 active keys per workspace and side, counted under a lock so
// that concurrent creations cannot pass it together.
import { describe, expect, it } from 'vitest';
import { IssueOperatorKey } from '../../src/application/workspaces/issue-operator-key.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ env: { RATE_LIMIT_BURST: '1000', RATE_LIMIT_PER_SECOND: '1000' } });

describe('active keys per workspace and side', () => {
  it('creates keys up to 100 on one side, even when 130 are asked for at once, then 422 UNPROCESSABLE naming the limit', async () => {
    // The workspace starts with one test key.
    const results = await Promise.all(
      Array.from({ length: 130 }, (_, i) => uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: `k${i}`, scopes: ['wallets:read'] })),
    );
    const created = results.filter((r) => r.status === 201);
    const refused = results.filter((r) => r.status !== 201);
    expect(created).toHaveLength(99);
    expect(refused).toHaveLength(31);
    for (const r of refused) {
      expect(r.status).toBe(422);
      expect(r.body).toEqual({ error: expect.stringContaining('at most 100 active API keys'), code: 'UNPROCESSABLE', details: { limit: 100, active: 100 } });
    }
    const list = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/api-keys');
    expect(list.body.total).toBe(100);

    // The other side has its own 100.
    const live = await uniqueCall(t.api.baseUrl, t.ws.liveKey, 'POST', '/v2/api-keys', { label: 'live', scopes: ['wallets:read'] });
    expect(live.status).toBe(201);

    // Revoking one frees a place.
    const revoked = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'DELETE', `/v2/api-keys/${created[0]!.body.id}`);
    expect(revoked.status).toBe(200);
    expect((await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: 'after', scopes: ['wallets:read'] })).status).toBe(201);
    expect((await uniqueCall(t.api.baseUrl, t.ws.testKey, 'POST', '/v2/api-keys', { label: 'over', scopes: ['wallets:read'] })).status).toBe(422);

    // The operator's recovery key is not held to the limit.
    const issued = await t.api.infra.container.resolve(IssueOperatorKey).execute({ workspaceId: t.ws.workspaceId, side: 'test' });
    expect(issued.keyId).toMatch(/^sk_test_/);
  });
});
