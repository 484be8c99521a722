// Registers the receiver's URL as a webhook endpoint of the sandbox workspace
// for every event, and prints WEBHOOK_SECRET=<secret> for server.ts. Run again
// for the same URL, it rotates the endpoint's secret instead of adding a
// second endpoint (the API shows a secret only once). With --remove, the
// endpoint goes (deactivated first: no new deliveries while one pending ends).
//
//   export $(node --import tsx examples/webhook-receiver/register.ts http://127.0.0.1:3000/webhooks)
//   node --import tsx examples/webhook-receiver/register.ts --remove http://127.0.0.1:3000/webhooks
import { ConflictError, WEBHOOK_EVENTS, type WalletClient, type WebhookEndpoint } from '../../src/sdk/index.js';
import { fail, sandboxClient } from '../sandbox-workspace.js';

/**
 * Refused (409) while a delivery is pending: asked again for 20 seconds, so that a receiver still running gets
 * it (a deactivated endpoint's deliveries are not sent); then deactivated (no new deliveries) and left for a
 * later run.
 */
async function remove(client: WalletClient, endpoint: WebhookEndpoint): Promise<void> {
  for (let attempt = 0; attempt < 20; attempt++) {
    try {
      await client.deleteWebhookEndpoint(endpoint.id);
      process.stderr.write(`endpoint ${endpoint.id} for ${endpoint.url}: removed\n`);
      return;
    } catch (err) {
      if (!(err instanceof ConflictError)) throw err;
      await new Promise((resolve) => setTimeout(resolve, 1000));
    }
  }
  await client.updateWebhookEndpoint(endpoint.id, { is_active: false });
  process.stderr.write(`endpoint ${endpoint.id} for ${endpoint.url}: deactivated, a delivery still pending (retried for up to a day); run again once it ends\n`);
  process.exitCode = 1;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const removing = args.includes('--remove');
  const url = args.find((a) => a !== '--remove') ?? `http://127.0.0.1:${process.env.RECEIVER_PORT ?? 3000}/webhooks`;
  const client = sandboxClient();
  let existing: WebhookEndpoint | undefined;
  for await (const endpoint of client.webhookEndpoints.list()) {
    if (endpoint.url === url) {
      existing = endpoint;
      break;
    }
  }
  if (removing) {
    if (existing) await remove(client, existing);
    else process.stderr.write(`no endpoint for ${url}\n`);
    return;
  }
  let id: string;
  let secret: string;
  if (existing) {
    await client.updateWebhookEndpoint(existing.id, { events: [...WEBHOOK_EVENTS], is_active: true });
    ({ id, secret } = await client.rotateWebhookSecret(existing.id));
    process.stderr.write(`endpoint ${id} for ${url}: secret rotated (the previous one stays valid for 24 hours)\n`);
  } else {
    ({ id, secret } = await client.createWebhookEndpoint({ url, events: [...WEBHOOK_EVENTS] }));
    process.stderr.write(`endpoint ${id} for ${url}: created for every event\n`);
  }
  process.stdout.write(`WEBHOOK_SECRET=${secret}\n`);
}

main().catch(fail);
