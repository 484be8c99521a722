// A webhook receiver: verifies each delivery's signature against the raw body
// (verifyWebhook, which also refuses a timestamp more than 5 minutes off),
// answers 2xx at once and applies the event afterwards, once: a delivery id
// seen before (a retry, a redelivery, a replayed request) is acknowledged
// and not applied again, and neither is the same event for the same
// resource arriving under another delivery id.
//
//   WEBHOOK_SECRET=... node --import tsx examples/webhook-receiver/server.ts
//
// RECEIVER_PORT (default 3000) and RECEIVER_HOST (default 127.0.0.1) say where
// it listens; WEBHOOK_SECRET may hold two secrets, comma-separated, while a
// secret is rotated. See README.md beside this file.
import express from 'express';
import { verifyWebhook, WebhookVerificationError, type VerifiedWebhook } from '../../src/sdk/index.js';
import { say } from '../sandbox-workspace.js';

/** Ids remembered, oldest forgotten first beyond `max`: an example's stand-in for a table with a unique key. */
class RecentIds {
  private readonly ids = new Set<string>();
  constructor(private readonly max: number) {}

  /** True the first time an id is offered. */
  add(id: string): boolean {
    if (this.ids.has(id)) return false;
    this.ids.add(id);
    if (this.ids.size > this.max) this.ids.delete(this.ids.values().next().value!);
    return true;
  }
}

/** What an event is about: "deposit <id>", "withdrawal <id>", ...; null for events about no single resource. */
function resourceOf(delivery: VerifiedWebhook): string | null {
  const data = delivery.data;
  if (typeof data.deposit_id === 'string') return `deposit ${data.deposit_id}`;
  if (typeof data.withdrawal_id === 'string') return `withdrawal ${data.withdrawal_id}`;
  if (delivery.event === 'COMMITMENT_ADJUSTMENT_EMITTED' && typeof data.id === 'string') return `commitment adjustment ${data.id}`;
  return null;
}

const secrets = (process.env.WEBHOOK_SECRET ?? '').split(',').filter(Boolean);
if (secrets.length === 0) {
  process.stderr.write('WEBHOOK_SECRET is required: the secret shown when the endpoint was created (register.ts prints it)\n');
  process.exit(1);
}
const port = Number(process.env.RECEIVER_PORT ?? 3000);
const host = process.env.RECEIVER_HOST ?? '127.0.0.1';

const deliveries = new RecentIds(100_000);
const applied = new RecentIds(100_000);

/** Your business logic goes here; it runs after the answer has gone, so it may take its time. */
function apply(delivery: VerifiedWebhook): void {
  const resource = resourceOf(delivery);
  const key = resource === null ? null : `${delivery.event} ${resource}`;
  if (key !== null && !applied.add(key)) {
    say(`already applied ${key} (delivery ${delivery.deliveryId}): ignored`);
    return;
  }
  const { amount, asset, status } = delivery.data as { amount?: string; asset?: string; status?: string };
  say(`applied ${delivery.event}${resource ? ` ${resource}` : ''}${amount ? ` ${amount} ${asset}` : ''}${status ? ` ${status}` : ''} (delivery ${delivery.deliveryId})`);
}

const app = express();
app.post('/webhooks', express.raw({ type: 'application/json', limit: '256kb' }), (req, res) => {
  let delivery: VerifiedWebhook;
  try {
    // The raw bytes, as received: a parsed and re-serialised body would not match the signature.
    delivery = verifyWebhook({ rawBody: Buffer.isBuffer(req.body) ? req.body : Buffer.alloc(0), headers: req.headers, secret: secrets });
  } catch (err) {
    if (!(err instanceof WebhookVerificationError)) throw err;
    say(`refused: ${err.reason}`);
    res.status(400).json({ error: err.reason });
    return;
  }
  if (delivery.deliveryId === null) {
    say('refused: MISSING_DELIVERY_ID');
    res.status(400).json({ error: 'MISSING_DELIVERY_ID' });
    return;
  }
  if (!deliveries.add(delivery.deliveryId)) {
    // Acknowledged, or the service would try it again: it was handled the first time.
    say(`duplicate delivery ${delivery.deliveryId} (${delivery.event}): ignored`);
    res.status(200).json({ duplicate: true });
    return;
  }
  res.status(202).json({ accepted: true });
  setImmediate(() => apply(delivery));
});

const server = app.listen(port, host, () => say(`listening on http://${host}:${port}/webhooks`));
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => server.close(() => process.exit(0)));
}
