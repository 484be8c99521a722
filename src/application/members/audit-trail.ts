// Recording a member's action in the audit log in the transaction of the
// change itself (issue 32, ADR 0033): for changes made through the API's use
// cases (webhook endpoints, API keys), which know a principal, not a member.
// The use case's own unit of work joins this one (a savepoint), so the change
// and its audit entry commit together or not at all.
import { inject, injectable } from 'tsyringe';
import type { Actor } from '../../domain/members/audit.js';
import type { Clock, RandomSource, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface Audited<T> {
  /** What the change returned. */
  result: T;
  /** What the audit entry says was changed on what, and the state before and after (no secrets). */
  target: string | null;
  before?: unknown;
  after?: unknown;
}

@injectable()
export class AuditTrail {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
  ) {}

  /** Runs `change` and records `action` by `actor` on `workspaceId` with what it reports, in one transaction. */
  async within<T>(workspaceId: string, actor: Actor, action: string, change: () => Promise<Audited<T>>): Promise<T> {
    return this.uow.run(async (tx) => {
      const done = await change();
      await tx.audit.record({
        id: this.random.uuid(),
        workspaceId,
        actor,
        action,
        target: done.target,
        before: done.before ?? null,
        after: done.after ?? null,
        at: this.clock.now(),
      });
      return done.result;
    });
  }
}
