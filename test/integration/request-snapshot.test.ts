// The networks' switches a signed request uses are the ones its admission
// statement read (src/adapters/persistence/request-snapshot.ts): one round
// trip fewer per request. Within a request the admission's read holds; a
// request changing a switch reads it afresh; outside a request (the workers,
// the CLI) every use reads the table; the next request reads the switch as
// it is then.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { TOKENS } from '../../src/application/tokens.js';
import type { NetworkSwitches, RequestAdmission } from '../../src/domain/ports.js';
import { inRequestScope, requestSnapshot } from '../../src/adapters/persistence/request-snapshot.js';
import { uniqueCall, useTestApi } from '../support/harness.js';

const t = useTestApi({ workspace: 'request-snapshot' });

describe('the switches read with the admission', () => {
  it('holds for the rest of the request, is read afresh after a change in it, and is not kept outside a request', async () => {
    const admission = t.api.infra.container.resolve<RequestAdmission>(TOKENS.RequestAdmission);
    const switches = t.api.infra.container.resolve<NetworkSwitches>(TOKENS.NetworkSwitches);
    const sql = (text: string) => t.api.infra.orm.em.getConnection().execute(text);
    const flip = (enabled: boolean) =>
      sql(`insert into network_switches (network, enabled, updated_at) values ('BSC_TESTNET', ${enabled}, now())
           on conflict (network) do update set enabled = excluded.enabled, updated_at = excluded.updated_at`);
    // An unknown key: admitted as stale, nothing recorded, and the switches read all the same.
    const admit = () =>
      admission.admit({ apiKeyId: randomUUID(), keyId: `nobody-${randomUUID()}`, credentialVersion: 'none', signature: randomUUID(), signatureExpiresAt: new Date(Date.now() + 600_000) });
    try {
      await flip(true);
      await inRequestScope(async () => {
        expect(requestSnapshot()).toEqual({});
        expect(await admit()).toMatchObject({ stale: true });
        expect(requestSnapshot()?.switches).toMatchObject({ BSC_TESTNET: true });
        await flip(false); // another process's operator, after this request was admitted
        expect((await switches.overrides()).BSC_TESTNET).toBe(true);
        await switches.set('BSC_TESTNET', false, new Date());
        expect(requestSnapshot()?.switches).toBeUndefined();
        expect((await switches.overrides()).BSC_TESTNET).toBe(false);
      });
      expect(requestSnapshot()).toBeUndefined();
      await flip(true);
      expect((await switches.overrides()).BSC_TESTNET).toBe(true);
      await admit(); // outside a request: nothing is kept
      await flip(false);
      expect((await switches.overrides()).BSC_TESTNET).toBe(false);
      // Two requests, a switch changed between them: the second reads it as it is then.
      const chainsEnabled = async () => {
        const res = await uniqueCall(t.api.baseUrl, t.ws.testKey, 'GET', '/v2/chains');
        return (res.body.data as { chain: string; enabled: boolean }[]).find((c) => c.chain === 'BSC_TESTNET')!.enabled;
      };
      expect(await chainsEnabled()).toBe(false);
      await flip(true);
      expect(await chainsEnabled()).toBe(true);
    } finally {
      await sql(`delete from network_switches where network = 'BSC_TESTNET'`);
    }
  });
});
