// Registers the receiver's URL as a webhook endpoint of the sandbox workspace
// for every event, and prints WEBHOOK_SECRET=<secret> for server.ts. Run again
// for the same URL, it rotates the endpoint's secret instead of adding a
// second endpoint (the API shows a secret only once).
//
//   export $(node --import tsx examples/webhook-receiver/register.ts http://127.0.0.1:3000/webhooks)
import { WEBHOOK_EVENTS, type WebhookEndpoint } from '../../src/sdk/index.js';
import { fail, sandboxClient } from '../sandbox-workspace.js';

async function main(): Promise<void> {
  const url = process.argv[2] ?? `http://127.0.0.1:${process.env.RECEIVER_PORT ?? 3000}/webhooks`;
  const client = sandboxClient();
  let existing: WebhookEndpoint | undefined;
  for await (const endpoint of client.webhookEndpoints.list()) {
    if (endpoint.url === url) {
      existing = endpoint;
      break;
    }
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
