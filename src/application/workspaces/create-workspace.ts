// Operator use case: a new workspace with its first two keys, one live and one
// test, both holding every scope (docs/operations.md#workspaces-and-keys).
// Secrets are returned once, stored encrypted.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { Clock, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import { WORKSPACE_NAME_MAX, type Workspace } from '../../domain/workspaces/workspace.js';
import { TOKENS } from '../tokens.js';
import { fullScopeKey, type IssuedKey } from './issue-operator-key.js';
import { contactEmailOf } from './set-workspace-contact.js';

export interface CreatedWorkspace {
  workspaceId: string;
  /** Where operator notices go; null when none was given. */
  contactEmail: string | null;
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

  async execute(cmd: { name: string; contactEmail?: string | null }): Promise<CreatedWorkspace> {
    const name = cmd.name.trim();
    if (name.length === 0 || name.length > WORKSPACE_NAME_MAX) {
      throw new DomainError('VALIDATION_ERROR', `name must be 1 to ${WORKSPACE_NAME_MAX} characters`);
    }
    const contactEmail = cmd.contactEmail == null ? null : contactEmailOf(cmd.contactEmail);
    const now = this.clock.now();
    const workspace: Workspace = {
      id: this.random.uuid(),
      name,
      status: 'ACTIVE',
      withdrawalsFrozen: false,
      contactEmail,
      createdAt: now,
      updatedAt: now,
    };
    const deps = { cipher: this.cipher, random: this.random };
    const live = fullScopeKey(deps, workspace.id, 'live', 'Initial live key', now);
    const test = fullScopeKey(deps, workspace.id, 'test', 'Initial test key', now);
    await this.uow.run(async (tx) => {
      await tx.workspaces.add(workspace);
      await tx.apiKeys.add(live.key);
      await tx.apiKeys.add(test.key);
      await tx.jobs.enqueue('workspace.created', { workspaceId: workspace.id });
    });
    return { workspaceId: workspace.id, contactEmail, liveKey: live.issued, testKey: test.issued };
  }
}
