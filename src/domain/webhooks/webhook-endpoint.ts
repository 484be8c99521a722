// A webhook endpoint of a workspace on one side (docs/api.md#webhooks): where
// events are POSTed, which ones, and the secret that signs them. The secret
// is kept only as ciphertext; after a rotation the previous one stays valid
// for 24 hours, and deliveries carry a signature with each.
import type { NetworkSide } from '../money/networks.js';
import type { EventName } from './events.js';

export interface WebhookEndpoint {
  id: string;
  workspaceId: string;
  side: NetworkSide;
  url: string;
  events: EventName[];
  isActive: boolean;
  secretCiphertext: string;
  previousSecretCiphertext: string | null;
  previousSecretExpiresAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Endpoints a workspace may register on each side. */
export const MAX_WEBHOOK_ENDPOINTS = 10;
/** How long the previous secret keeps signing after a rotation. */
export const SECRET_OVERLAP_MS = 24 * 60 * 60 * 1000;
/** Prefix of endpoint secrets, so a leaked one is recognisable. */
export const WEBHOOK_SECRET_PREFIX = 'whsec_';

/** A new endpoint secret: 32 random bytes behind the prefix. */
export const newWebhookSecret = (random: { token(bytes: number): string }): string => WEBHOOK_SECRET_PREFIX + random.token(32);

export interface WebhookEndpointPatch {
  url?: string;
  events?: EventName[];
  isActive?: boolean;
}

/** The events list as stored: each name once, in the catalogue's order. */
export const normaliseEvents = (events: readonly EventName[], catalogue: readonly EventName[]): EventName[] =>
  catalogue.filter((e) => events.includes(e));
