// Operator use case: a new key holding every scope for an existing workspace,
// on one side (docs/operations.md#workspaces-and-keys). How a workspace that
// revoked all its keys gets back in; the secret is returned once and stored
// encrypted.
import { inject, injectable } from 'tsyringe';
import { keyIdPrefix, type ApiKey } from '../../domain/auth/api-key.js';
import { SCOPES } from '../../domain/auth/scopes.js';
import { DomainError } from '../../domain/errors.js';
import type { NetworkSide } from '../../domain/money/networks.js';
import type { Clock, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface IssuedKey {
  keyId: string;
  secret: string;
}

/** A full-scope key of a workspace, ready to store, and its secret (shown once). */
export function fullScopeKey(
  deps: { cipher: SecretCipher; random: RandomSource },
  workspaceId: string,
  side: NetworkSide,
  label: string,
  now: Date,
): { key: ApiKey; issued: IssuedKey } {
  const secret = deps.random.token(32);
  const key: ApiKey = {
    id: deps.random.uuid(),
    workspaceId,
    keyId: keyIdPrefix(side) + deps.random.token(18),
    label,
    scopes: [...SCOPES],
    permission: null,
    allowedIps: [],
    isTest: side === 'test',
    secretCiphertext: deps.cipher.encrypt(secret),
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    createdAt: now,
  };
  return { key, issued: { keyId: key.keyId, secret } };
}

@injectable()
export class IssueOperatorKey {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(cmd: { workspaceId: string; side: NetworkSide }): Promise<IssuedKey> {
    const now = this.clock.now();
    const { key, issued } = fullScopeKey({ cipher: this.cipher, random: this.random }, cmd.workspaceId, cmd.side, `Operator-issued ${cmd.side} key`, now);
    await this.uow.run(async (tx) => {
      if (!(await tx.workspaces.get(cmd.workspaceId))) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${cmd.workspaceId}`);
      await tx.apiKeys.add(key);
    });
    return issued;
  }
}
