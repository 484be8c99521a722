// The SDK has no dependencies, so it carries its own copy of the API's
// enumerations. These checks keep the copies equal to the service's.
import { describe, expect, expectTypeOf, it } from 'vitest';
import { SCOPES, type Scope } from '../../../src/domain/auth/scopes.js';
import type { Asset, BaseChain, Network } from '../../../src/domain/money/networks.js';
import type { WithdrawalStatus } from '../../../src/domain/withdrawals/withdrawal.js';
import type { DripItemStatus, DripStatus } from '../../../src/domain/faucet/faucet.js';
import { EVENT_NAMES, type EventName } from '../../../src/domain/webhooks/events.js';
import {
  API_KEY_SCOPES,
  WEBHOOK_EVENTS,
  type WebhookEventName,
  type Asset as SdkAsset,
  type BaseChain as SdkBaseChain,
  type ResolvedChain,
  type Scope as SdkScope,
  type WithdrawalStatus as SdkWithdrawalStatus,
  type DripStatus as SdkDripStatus,
  type DripItemStatus as SdkDripItemStatus,
} from '../../../src/sdk/index.js';

describe("the SDK's copies of the API's enumerations", () => {
  it('match the service: scopes, chains, networks and assets', () => {
    expect([...API_KEY_SCOPES]).toEqual([...SCOPES]);
    expectTypeOf<SdkScope>().toEqualTypeOf<Scope>();
    expectTypeOf<SdkBaseChain>().toEqualTypeOf<BaseChain>();
    expectTypeOf<ResolvedChain>().toEqualTypeOf<Network>();
    expectTypeOf<SdkAsset>().toEqualTypeOf<Asset>();
    expectTypeOf<SdkWithdrawalStatus>().toEqualTypeOf<WithdrawalStatus>();
    expectTypeOf<SdkDripStatus>().toEqualTypeOf<DripStatus>();
    expectTypeOf<SdkDripItemStatus>().toEqualTypeOf<DripItemStatus>();
  });

  it('match the service: webhook events', () => {
    expect([...WEBHOOK_EVENTS]).toEqual([...EVENT_NAMES]);
    expectTypeOf<WebhookEventName>().toEqualTypeOf<EventName>();
  });
});
