// Operator use case: set or clear the e-mail address that gets the workspace's
// operator notices, such as a webhook endpoint that keeps failing
// (docs/operations.md#operator-notices).
import { inject, injectable } from 'tsyringe';
import { z } from 'zod';
import { DomainError } from '../../domain/errors.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

const EMAIL = z.email();

/**
 * The address as stored (trimmed), or VALIDATION_ERROR when it is not one.
 * The ops CLI checks with the same rule; this keeps every other caller honest.
 */
export function contactEmailOf(email: string): string {
  const trimmed = email.trim();
  if (!EMAIL.safeParse(trimmed).success) throw new DomainError('VALIDATION_ERROR', 'contact e-mail is not a valid e-mail address');
  return trimmed;
}

@injectable()
export class SetWorkspaceContact {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  /** Returns the address now stored (null when cleared). */
  async execute(cmd: { workspaceId: string; email: string | null }): Promise<string | null> {
    const email = cmd.email === null ? null : contactEmailOf(cmd.email);
    const changed = await this.uow.run((tx) => tx.workspaces.setContactEmail(cmd.workspaceId, email, this.clock.now()));
    if (!changed) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${cmd.workspaceId}`);
    return email;
  }
}
