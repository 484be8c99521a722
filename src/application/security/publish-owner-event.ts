// Owner events (WITHDRAWAL_POLICY_CHANGED, BENEFICIARY_ADDED,
// BENEFICIARY_REMOVED) are about the workspace's settings, not about one side:
// each is published once per side, so endpoints registered with a live key and
// with a test key both receive it (docs/adr/0018-withdrawal-security-settings.md).
import type { NetworkSide } from '../../domain/money/networks.js';
import type { EventData, EventPayloads } from '../../domain/webhooks/events.js';
import type { EventPublisher } from '../../domain/webhooks/ports.js';

const OWNER_EVENT_SIDES: readonly NetworkSide[] = ['live', 'test'];

/** One recorded copy of an owner event. */
export interface PublishedOwnerEvent {
  side: NetworkSide;
  eventId: string;
}

/** Publishes the event on both sides, inside the caller's unit of work. */
export async function publishOwnerEvent<E extends keyof EventPayloads>(
  events: EventPublisher,
  workspaceId: string,
  event: E,
  data: EventData<E>,
): Promise<PublishedOwnerEvent[]> {
  const published: PublishedOwnerEvent[] = [];
  for (const side of OWNER_EVENT_SIDES) {
    const { eventId } = await events.publish({ workspaceId, side, event, data });
    published.push({ side, eventId });
  }
  return published;
}
