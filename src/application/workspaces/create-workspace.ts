// Operator use case: a new workspace with its first two keys, one live and one
// test, both holding every scope (D11). Secrets are returned once, stored encrypted.
import { inject, injectable } from 'tsyringe';
import { keyIdPrefix, type ApiKey } from '../../domain/auth/api-key.js';
import { SCOPES } from '../../domain/auth/scopes.js';
import { DomainError } from '../../domain/errors.js';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { Clock, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import { WORKSPACE_NAME_MAX, type Workspace } from '../../domain/workspaces/workspace.js';
import { TOKENS } from '../tokens.js';

export interface IssuedKey {
  keyId: string;
  secret: string;
}

export interface CreatedWorkspace {
  workspaceId: string;
  liveKey: IssuedKey;
  testKey: IssuedKey;
}

@injectable()
export class CreateWorkspace {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(cmd: { name: string }): Promise<CreatedWorkspace> {
    const name = cmd.name.trim();
    if (name.length === 0 || name.length > WORKSPACE_NAME_MAX) {
      throw new DomainError('VALIDATION_ERROR', `name must be 1 to ${WORKSPACE_NAME_MAX} characters`);
    }
    const now = this.clock.now();
    const workspace: Workspace = {
      id: this.random.uuid(),
      name,
      status: 'ACTIVE',
      withdrawalsFrozen: false,
      createdAt: now,
      updatedAt: now,
    };
    const live = this.issueKey(workspace.id, 'live', now);
    const test = this.issueKey(workspace.id, 'test', now);
    await this.uow.run(async (tx) => {
      await tx.workspaces.add(workspace);
      await tx.apiKeys.add(live.key);
      await tx.apiKeys.add(test.key);
      await tx.jobs.enqueue('workspace.created', { workspaceId: workspace.id });
    });
    return { workspaceId: workspace.id, liveKey: live.issued, testKey: test.issued };
  }

  private issueKey(workspaceId: string, side: NetworkSide, now: Date): { key: ApiKey; issued: IssuedKey } {
    const secret = this.random.token(32);
    const key: ApiKey = {
      id: this.random.uuid(),
      workspaceId,
      keyId: keyIdPrefix(side) + this.random.token(18),
      label: side === 'live' ? 'Initial live key' : 'Initial test key',
      scopes: [...SCOPES],
      permission: null,
      allowedIps: [],
      isTest: side === 'test',
      secretCiphertext: this.cipher.encrypt(secret),
      lastUsedAt: null,
      expiresAt: null,
      revokedAt: null,
      createdAt: now,
    };
    return { key, issued: { keyId: key.keyId, secret } };
  }
}
