// POST /v2/api-keys (docs/api.md#api-keys): a new key on the creator's
// network, holding no scope its creator lacks, within the workspace's key
// limit; the secret is returned once and stored encrypted.
import { inject, injectable } from 'tsyringe';
import { decideGrant, narrowRestrictions } from '../../domain/auth/api-key-grant.js';
import { MAX_ACTIVE_KEYS_PER_SIDE, keyIdPrefix, type ApiKey } from '../../domain/auth/api-key.js';
import { canonicalAllowlistEntry } from '../../domain/auth/ip-allowlist.js';
import type { Principal } from '../../domain/auth/principal.js';
import { requireScope } from '../../domain/auth/principal.js';
import type { LegacyPermission, Scope } from '../../domain/auth/scopes.js';
import { DomainError } from '../../domain/errors.js';
import type { Clock, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface CreateApiKeyCommand {
  label: string;
  scopes?: Scope[];
  permission?: LegacyPermission;
  allowedIps?: string[];
  expiresAt?: Date;
}

@injectable()
export class CreateApiKey {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, cmd: CreateApiKeyCommand): Promise<{ key: ApiKey; secret: string }> {
    requireScope(principal, 'api_keys:write');
    const grant = decideGrant({ scopes: cmd.scopes, permission: cmd.permission }, principal.scopes);
    const now = this.clock.now();
    const allowedIps = (cmd.allowedIps ?? []).map(canonicalAllowlistEntry);
    const bad = allowedIps.findIndex((ip) => ip === null);
    if (bad >= 0) {
      throw new DomainError('VALIDATION_ERROR', 'allowed_ips holds an entry that is neither an IP nor a CIDR range', [
        { path: `allowed_ips.${bad}`, message: 'must be an IPv4 (dotted decimal) or IPv6 address, or a CIDR range' },
      ]);
    }
    if (cmd.expiresAt && cmd.expiresAt.getTime() <= now.getTime()) {
      throw new DomainError('VALIDATION_ERROR', 'expires_at must be in the future', [
        { path: 'expires_at', message: 'must be in the future' },
      ]);
    }
    const limits = narrowRestrictions(
      { allowedIps: [...new Set(allowedIps as string[])], expiresAt: cmd.expiresAt ?? null },
      principal.restrictions,
    );
    const secret = this.random.token(32);
    const key: ApiKey = {
      id: this.random.uuid(),
      workspaceId: principal.workspaceId,
      keyId: keyIdPrefix(principal.side) + this.random.token(18),
      label: cmd.label,
      scopes: grant.scopes,
      permission: grant.permission,
      allowedIps: [...limits.allowedIps],
      isTest: principal.side === 'test',
      secretCiphertext: this.cipher.encrypt(secret),
      lastUsedAt: null,
      expiresAt: limits.expiresAt,
      revokedAt: null,
      createdAt: now,
    };
    await this.uow.run(async (tx) => {
      const active = await tx.apiKeys.countActiveForUpdate(principal.workspaceId, principal.side, now);
      if (active >= MAX_ACTIVE_KEYS_PER_SIDE) {
        throw new DomainError(
          'UNPROCESSABLE',
          `A workspace may hold at most ${MAX_ACTIVE_KEYS_PER_SIDE} active API keys on each side; revoke one first`,
          { limit: MAX_ACTIVE_KEYS_PER_SIDE, active },
        );
      }
      await tx.apiKeys.add(key);
    });
    return { key, secret };
  }
}
