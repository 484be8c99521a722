// POST /v2/webhooks (docs/api.md#webhooks): a new endpoint of the caller's
// workspace and side, at most 10 of them; its secret is returned once and
// stored encrypted.
import { inject, injectable } from 'tsyringe';
import { requireScope, type Principal } from '../../domain/auth/principal.js';
import { DomainError } from '../../domain/errors.js';
import type { Clock, RandomSource, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import { EVENT_NAMES, type EventName } from '../../domain/webhooks/events.js';
import type { WebhookUrlGuard } from '../../domain/webhooks/ports.js';
import {
  MAX_WEBHOOK_ENDPOINTS,
  newWebhookSecret,
  normaliseEvents,
  type WebhookEndpoint,
} from '../../domain/webhooks/webhook-endpoint.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class CreateWebhookEndpoint {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.WebhookUrlGuard) private readonly urls: WebhookUrlGuard,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RandomSource) private readonly random: RandomSource,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(principal: Principal, cmd: { url: string; events: EventName[] }): Promise<{ endpoint: WebhookEndpoint; secret: string }> {
    requireScope(principal, 'webhooks:write');
    // Outside the transaction: resolving the host is I/O.
    const url = await this.urls.check(cmd.url);
    const secret = newWebhookSecret(this.random);
    const now = this.clock.now();
    const endpoint: WebhookEndpoint = {
      id: this.random.uuid(),
      workspaceId: principal.workspaceId,
      side: principal.side,
      url,
      events: normaliseEvents(cmd.events, EVENT_NAMES),
      isActive: true,
      secretCiphertext: this.cipher.encrypt(secret),
      previousSecretCiphertext: null,
      previousSecretExpiresAt: null,
      createdAt: now,
      updatedAt: now,
    };
    await this.uow.run(async (tx) => {
      const count = await tx.webhooks.countForUpdate(principal.workspaceId, principal.side);
      if (count >= MAX_WEBHOOK_ENDPOINTS) {
        throw new DomainError('WEBHOOK_LIMIT_REACHED', `A workspace may register at most ${MAX_WEBHOOK_ENDPOINTS} webhook endpoints on each network side`, {
          limit: MAX_WEBHOOK_ENDPOINTS,
        });
      }
      await tx.webhooks.add(endpoint);
    });
    return { endpoint, secret };
  }
}
