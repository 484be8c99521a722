import { describe, expect, it } from 'vitest';
import { CreateWorkspace } from '../../../src/application/workspaces/create-workspace.js';
import { SetWorkspaceStatus } from '../../../src/application/workspaces/set-workspace-status.js';
import { SCOPES } from '../../../src/domain/auth/scopes.js';
import { fakeWorld } from '../../support/fakes.js';

describe('CreateWorkspace', () => {
  it('creates a workspace with a live and a test key holding every scope, secrets stored only encrypted', async () => {
    const w = fakeWorld();
    const out = await new CreateWorkspace(w.uow, w.cipher, w.random, w.clock).execute({ name: ' Acme ' });
    expect(w.store.workspaces.get(out.workspaceId)?.name).toBe('Acme');
    expect(out.liveKey.keyId).toMatch(/^sk_live_/);
    expect(out.testKey.keyId).toMatch(/^sk_test_/);
    const keys = [...w.store.apiKeys.values()];
    expect(keys.map((k) => k.isTest).sort()).toEqual([false, true]);
    for (const k of keys) {
      expect(k.scopes).toEqual([...SCOPES]);
      expect(k.secretCiphertext).not.toContain(out.liveKey.secret);
      expect(k.secretCiphertext).not.toContain(out.testKey.secret);
    }
    expect(w.cipher.decrypt(keys.find((k) => k.isTest)!.secretCiphertext)).toBe(out.testKey.secret);
    expect(w.store.jobs).toEqual([{ name: 'workspace.created', payload: { workspaceId: out.workspaceId } }]);
  });

  it('refuses an empty name and changes nothing', async () => {
    const w = fakeWorld();
    await expect(new CreateWorkspace(w.uow, w.cipher, w.random, w.clock).execute({ name: '  ' })).rejects.toMatchObject({
      code: 'VALIDATION_ERROR',
    });
    expect(w.store.workspaces.size).toBe(0);
    expect(w.store.jobs).toHaveLength(0);
  });

  it('deactivates and re-activates a workspace, and reports an unknown one', async () => {
    const w = fakeWorld();
    const out = await new CreateWorkspace(w.uow, w.cipher, w.random, w.clock).execute({ name: 'Acme' });
    const set = new SetWorkspaceStatus(w.uow, w.clock);
    await set.execute({ workspaceId: out.workspaceId, status: 'INACTIVE' });
    expect(w.store.workspaces.get(out.workspaceId)?.status).toBe('INACTIVE');
    await set.execute({ workspaceId: out.workspaceId, status: 'ACTIVE' });
    expect(w.store.workspaces.get(out.workspaceId)?.status).toBe('ACTIVE');
    await expect(set.execute({ workspaceId: '00000000-0000-4000-8000-ffffffffffff', status: 'ACTIVE' })).rejects.toMatchObject({
      code: 'WORKSPACE_NOT_FOUND',
    });
  });
});
