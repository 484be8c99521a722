// The job webhook.dead-endpoint-notice (docs/operations.md#operator-notices):
// one e-mail to the workspace contact saying that an endpoint's deliveries
// keep failing for good, and how to get them back. The dispatcher decided the
// notice is due (the fifth FAILED delivery within 7 days, at most one notice
// per endpoint per 7 days); this writes and sends it. The mail goes out after
// the read transaction: a send that fails throws, and the job is retried.
import { inject, injectable } from 'tsyringe';
import { keyIdPrefix } from '../../domain/auth/api-key.js';
import type { Clock, Mailer, UnitOfWork } from '../../domain/ports.js';
import type { WebhookEndpoint } from '../../domain/webhooks/webhook-endpoint.js';
import type { Workspace } from '../../domain/workspaces/workspace.js';
import { TOKENS } from '../tokens.js';

/** The window the rule counts failures in, and the example `since` of the mail. */
const WINDOW_MS = 7 * 24 * 60 * 60 * 1000;

export type DeadEndpointNoticeOutcome =
  | { sent: true; to: string }
  /** endpoint_deleted: the endpoint is gone; no_contact_email: its workspace has no contact (or is gone). */
  | { sent: false; reason: 'endpoint_deleted' | 'no_contact_email' };

@injectable()
export class SendDeadEndpointNotice {
  constructor(
    @inject(TOKENS.UnitOfWork) private readonly uow: UnitOfWork,
    @inject(TOKENS.Mailer) private readonly mailer: Mailer,
    @inject(TOKENS.Clock) private readonly clock: Clock,
  ) {}

  async execute(cmd: { endpointId: string; failures: number }): Promise<DeadEndpointNoticeOutcome> {
    const found = await this.uow.run(async (tx) => {
      const endpoint = await tx.webhooks.findById(cmd.endpointId);
      return endpoint ? { endpoint, workspace: await tx.workspaces.get(endpoint.workspaceId) } : null;
    });
    if (!found) return { sent: false, reason: 'endpoint_deleted' };
    const to = found.workspace?.contactEmail;
    if (!found.workspace || !to) return { sent: false, reason: 'no_contact_email' };
    await this.mailer.send({ to, ...deadEndpointMail(found.endpoint, found.workspace, cmd.failures, this.clock.now()) });
    return { sent: true, to };
  }
}

/** The notice itself: plain text, everything needed to act on it without logging in anywhere first. */
export function deadEndpointMail(endpoint: WebhookEndpoint, workspace: Workspace, failures: number, now: Date): { subject: string; text: string } {
  const since = new Date(now.getTime() - WINDOW_MS).toISOString().replace(/\.\d{3}Z$/, 'Z');
  const deliveries = `/v2/webhooks/${endpoint.id}/deliveries`;
  return {
    subject: `Webhook endpoint failing: ${endpoint.url}`,
    text: [
      `${failures} webhook deliveries to ${endpoint.url}`,
      'failed permanently within the last 7 days. A delivery fails permanently',
      'after 5 attempts without a 2xx answer; it is not tried again by itself.',
      '',
      `Endpoint:  ${endpoint.id}`,
      `URL:       ${endpoint.url}`,
      `Side:      ${endpoint.side} (the ${keyIdPrefix(endpoint.side)} keys)`,
      `Workspace: ${workspace.id} (${workspace.name})`,
      '',
      'The failed deliveries are kept for 90 days. Once the endpoint answers again,',
      'with a key of that workspace and side:',
      '',
      '1. See what failed:',
      `   GET ${deliveries}?status=FAILED`,
      '',
      '2. Send the failed deliveries again (those created at or after "since"):',
      `   POST ${deliveries}/redeliver-failed`,
      '   {"since": "<date-time>"}',
      `   For the last 7 days: {"since": "${since}"}`,
      '',
      'You get at most one such notice per endpoint every 7 days.',
    ].join('\n'),
  };
}
