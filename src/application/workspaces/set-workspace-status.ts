// Operator use case: deactivate or re-activate a workspace. An inactive
// workspace's keys are refused with WORKSPACE_INACTIVE on their next request.
import { inject, injectable } from 'tsyringe';
import { DomainError } from '../../domain/errors.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import type { WorkspaceStatus } from '../../domain/workspaces/workspace.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class SetWorkspaceStatus {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(cmd: { workspaceId: string; status: WorkspaceStatus }): Promise<void> {
    const changed = await this.uow.run((tx) => tx.workspaces.setStatus(cmd.workspaceId, cmd.status, this.clock.now()));
    if (!changed) throw new DomainError('WORKSPACE_NOT_FOUND', `No workspace ${cmd.workspaceId}`);
  }
}
