// One attempt of a webhook delivery a dispatcher holds (docs/api.md#deliveries):
// sign the stored body with the endpoint's secret (and, during the 24 hours
// after a rotation, the previous one), POST it, and record the outcome with
// the next state of the schedule. A delivery's fifth permanent failure within
// seven days on one endpoint queues the dead-endpoint notice (at most one per
// endpoint per seven days), in the same transaction.
import { inject, injectable } from 'tsyringe';
import type { Clock, RequestSigner, SecretCipher, UnitOfWork } from '../../domain/ports.js';
import {
  ATTEMPT_TIMEOUT_MS,
  DEAD_ENDPOINT_FAILURES,
  DEAD_ENDPOINT_WINDOW_MS,
  afterAttempt,
  deliveryHeaders,
  type DeliveryStatus,
} from '../../domain/webhooks/delivery-schedule.js';
import type { AttemptResult, ClaimedDelivery, DeliveryClaims, WebhookSender } from '../../domain/webhooks/ports.js';
import { TOKENS } from '../tokens.js';

export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  /** The state written, or `lost` when the claim ran out before the outcome could be written. */
  status: DeliveryStatus | 'lost';
  attempt: number;
  result: AttemptResult;
  noticeQueued: boolean;
}

@injectable()
export class AttemptDelivery {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.WebhookSender) private readonly sender: WebhookSender,
    @inject(TOKENS.SecretCipher) private readonly cipher: SecretCipher,
    @inject(TOKENS.RequestSigner) private readonly signer: RequestSigner,
    @inject(TOKENS.Clock) private readonly clock: Clock,
    @inject(TOKENS.DeliveryClaims) private readonly claims: DeliveryClaims,
  ) {}

  async execute({ delivery, endpoint }: ClaimedDelivery, owner: string): Promise<AttemptOutcome> {
    const startedAt = this.clock.now();
    let result: AttemptResult;
    if (!endpoint.isActive) {
      result = { responseStatus: null, error: 'not sent: the endpoint is deactivated', durationMs: 0 };
    } else {
      const headers = deliveryHeaders((secret, message) => this.signer.sign(secret, message), {
        id: delivery.id,
        event: delivery.event,
        body: delivery.payload,
        now: startedAt,
        secrets: {
          current: this.cipher.decrypt(endpoint.secretCiphertext),
          previous: endpoint.previousSecretCiphertext ? this.cipher.decrypt(endpoint.previousSecretCiphertext) : null,
          previousExpiresAt: endpoint.previousSecretExpiresAt,
        },
      });
      result = await this.sender.send({ url: endpoint.url, headers, body: delivery.payload, timeoutMs: ATTEMPT_TIMEOUT_MS });
    }
    const delivered = result.error === null && result.responseStatus !== null && result.responseStatus >= 200 && result.responseStatus < 300;
    const at = this.clock.now();
    const next = afterAttempt(delivery, delivered, at);
    const outcome = { deliveryId: delivery.id, endpointId: endpoint.id, attempt: next.attempts, result };
    if (next.status !== 'FAILED') {
      // Delivered, or due again: one statement, nothing else to decide.
      const written = await this.claims.finish(delivery.id, owner, next, result, at);
      return { ...outcome, status: written ? next.status : 'lost', noticeQueued: false };
    }
    return this.uow.run(async (tx) => {
      if (!(await tx.deliveries.recordAttempt(delivery.id, owner, next, result, at))) {
        return { ...outcome, status: 'lost', noticeQueued: false };
      }
      let noticeQueued = false;
      // A notice needs someone to tell: without a contact the slot is not taken, so a contact set later still hears.
      if (endpoint.isActive && (await tx.workspaces.get(endpoint.workspaceId))?.contactEmail) {
        const windowStart = new Date(at.getTime() - DEAD_ENDPOINT_WINDOW_MS);
        const failures = await tx.deliveries.countFailedSince(endpoint.id, windowStart);
        if (failures >= DEAD_ENDPOINT_FAILURES && (await tx.deliveries.takeNoticeSlot(endpoint.id, at, windowStart))) {
          await tx.jobs.enqueue('webhook.dead-endpoint-notice', { endpointId: endpoint.id, failures });
          noticeQueued = true;
        }
      }
      return { ...outcome, status: next.status, noticeQueued };
    });
  }
}
