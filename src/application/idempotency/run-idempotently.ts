// The one idempotency service any create opts into (docs/api.md#idempotency).
// In one transaction: take the scope's lock (else 409 IDEMPOTENCY_CONFLICT: the
// first request is in flight), replay a stored response (or 422
// IDEMPOTENCY_MISMATCH for another request), or run the operation as a
// savepoint and store its response. Operation, record and lock stand or fall
// together. The caller's scope for the operation is checked first: a replay
// never hands a stored response to a key that could not have made the request
// itself.
import { createHash } from 'node:crypto';
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import type { Scope } from '../../domain/auth/scopes.js';
import { DomainError, isDomainError } from '../../domain/errors.js';
import {
  IDEMPOTENCY_TTL_MS,
  canonicalJson,
  type IdempotencyScope,
  type StoredResponse,
} from '../../domain/idempotency/idempotency.js';
import type { Clock, UnitOfWork } from '../../domain/ports.js';
import { TOKENS } from '../tokens.js';

export interface IdempotentOutcome {
  response: StoredResponse;
  replayed: boolean;
}

/** Who asks, for what, and under which key: the record is kept per workspace, side, method and path. */
export interface IdempotentCall {
  principal: Principal;
  /** The scope the operation itself needs. */
  requiredScope: Scope;
  method: string;
  path: string;
  key: string;
}

export const fingerprintOf = (request: unknown): string =>
  createHash('sha256').update(canonicalJson(request)).digest('hex');

@injectable()
export class RunIdempotently {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  /**
   * `operation` runs in a savepoint and returns the response to store. When it
   * throws a business rejection, its writes are rolled back and `rejection`
   * says which response to remember for it (null: remember nothing, the error
   * propagates and the client may retry with the same key, as after any other
   * failure).
   */
  execute(
    call: IdempotentCall,
    request: unknown,
    operation: () => Promise<StoredResponse>,
    rejection: (err: DomainError) => StoredResponse | null,
  ): Promise<IdempotentOutcome> {
    requireScope(call.principal, call.requiredScope);
    const scope: IdempotencyScope = {
      workspaceId: call.principal.workspaceId,
      side: call.principal.side,
      method: call.method,
      path: call.path,
      key: call.key,
    };
    const fingerprint = fingerprintOf(request);
    return this.uow.run(async (tx) => {
      const now = this.clock.now();
      const claim = await tx.idempotency.claim(scope, now);
      if (!claim.locked) {
        throw new DomainError('IDEMPOTENCY_CONFLICT', 'A request with this Idempotency-Key is still in flight');
      }
      const { existing } = claim;
      if (existing) {
        if (existing.fingerprint !== fingerprint) {
          throw new DomainError('IDEMPOTENCY_MISMATCH', 'This Idempotency-Key was used with a different request');
        }
        return { response: existing.response, replayed: true };
      }
      let response: StoredResponse;
      try {
        response = await this.uow.savepoint(() => operation());
      } catch (err) {
        const remembered = isDomainError(err) ? rejection(err) : null;
        if (!remembered) throw err;
        response = remembered;
      }
      await tx.idempotency.save({
        ...scope,
        fingerprint,
        response,
        createdAt: now,
        expiresAt: new Date(now.getTime() + IDEMPOTENCY_TTL_MS),
      });
      return { response, replayed: false };
    });
  }
}
