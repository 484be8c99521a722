// PATCH /v2/webhooks/{id}, DELETE /v2/webhooks/{id} and
// POST /v2/webhooks/{id}/rotate-secret (scope webhooks:write): each on the
// endpoint's row, locked for the length of its transaction.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { Clock, RandomSource, SecretCipher, TxContext, UnitOfWork } from '../../domain/ports.js';
import { EVENT_NAMES } from '../../domain/webhooks/events.js';
import type { WebhookUrlGuard } from '../../domain/webhooks/ports.js';
import {
  SECRET_OVERLAP_MS,
  newWebhookSecret,
  normaliseEvents,
  type WebhookEndpoint,
  type WebhookEndpointPatch,
} from '../../domain/webhooks/webhook-endpoint.js';
import { TOKENS } from '../tokens.js';
import { callersEndpoint } from './callers-endpoint.js';

@injectable()
export class ChangeWebhookEndpoint {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.WebhookUrlGuard) private readonly urls: WebhookUrlGuard,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  private async locked<T>(principal: Principal, id: string, work: (tx: TxContext, e: WebhookEndpoint) => Promise<T>): Promise<T> {
    requireScope(principal, 'webhooks:write');
    return this.uow.run(async (tx) => work(tx, await callersEndpoint(tx, principal, id, { lock: true })));
  }

  /** Only the fields given change. */
  async update(principal: Principal, id: string, patch: WebhookEndpointPatch): Promise<WebhookEndpoint> {
    requireScope(principal, 'webhooks:write');
    const url = patch.url === undefined ? undefined : await this.urls.check(patch.url);
    return this.locked(principal, id, async (tx, endpoint) => {
      const changed = url !== undefined || patch.events !== undefined || patch.isActive !== undefined;
      if (url !== undefined) endpoint.url = url;
      if (patch.events !== undefined) endpoint.events = normaliseEvents(patch.events, EVENT_NAMES);
      if (patch.isActive !== undefined) endpoint.isActive = patch.isActive;
      if (changed) endpoint.updatedAt = this.clock.now();
      await tx.webhooks.save(endpoint);
      return endpoint;
    });
  }

  /** Removes the endpoint with its history; refused while a delivery to it is PENDING. */
  async delete(principal: Principal, id: string): Promise<void> {
    await this.locked(principal, id, async (tx, endpoint) => {
      if (await tx.webhooks.hasPendingDeliveries(endpoint.id)) {
        throw new DomainError('CONFLICT', 'This endpoint has deliveries still pending; retry once they are delivered or failed');
      }
      await tx.webhooks.delete(endpoint.id);
    });
  }

  /** A new secret, returned once; the previous one keeps signing for 24 hours. */
  async rotateSecret(principal: Principal, id: string): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    const secret = newWebhookSecret(this.random);
    const endpoint = await this.locked(principal, id, async (tx, e) => {
      const now = this.clock.now();
      e.previousSecretCiphertext = e.secretCiphertext;
      e.previousSecretExpiresAt = new Date(now.getTime() + SECRET_OVERLAP_MS);
      e.secretCiphertext = this.cipher.encrypt(secret);
      e.updatedAt = now;
      await tx.webhooks.save(e);
      return e;
    });
    return { endpoint, secret };
  }
}
