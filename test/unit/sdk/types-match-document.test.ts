// The SDK has no dependencies, so it keeps its own types of the API. These
// checks keep them equal to the schemas the service validates, presents and
// documents with: a field added, dropped or retyped on either side fails the
// typecheck (npm run typecheck, part of CI) — and this file's test names them.
import type { z } from 'zod';
import { describe, expect, it } from 'vitest';
import type { apiKeySchema, createBody as apiKeyBody, createdApiKeySchema, messageSchema } from '../../../src/adapters/http/api-keys.js';
import type { balanceListSchema } from '../../../src/adapters/http/balances.js';
import type { chainListSchema } from '../../../src/adapters/http/chains.js';
import type { pageOf } from '../../../src/adapters/http/common-schemas.js';
import type { createBody as customerBody, customerSchema, patchBody as customerPatch } from '../../../src/adapters/http/customers.js';
import type { commitmentOverviewSchema } from '../../../src/adapters/http/commitment.js';
import type { dripBody, dripSchema } from '../../../src/adapters/http/faucet.js';
import type { body as quoteBody, feeQuoteSchema } from '../../../src/adapters/http/fees.js';
import type { createBody as walletBody, walletDetailSchema, walletSchema } from '../../../src/adapters/http/wallets.js';
import type {
  createBody as webhookBody,
  createdWebhookSchema,
  deliverySchema,
  patchBody as webhookPatch,
  redeliverFailedBody,
  redeliveredSchema,
  rotatedWebhookSchema,
  webhookSchema,
} from '../../../src/adapters/http/webhooks.js';
import type * as sdk from '../../../src/sdk/index.js';

/** What the service sends is what the SDK declares: assignable, with the same fields. */
type Same<Service, Sdk> = [Service] extends [Sdk] ? ([keyof Service] extends [keyof Sdk] ? ([keyof Sdk] extends [keyof Service] ? true : false) : false) : false;
/** What the SDK sends is what the service accepts, with no field the service would refuse. */
type Accepted<Sdk, Service> = [Sdk] extends [Service] ? ([keyof Sdk] extends [keyof Service] ? true : false) : false;
type Out<S extends z.ZodType> = z.output<S>;
type In<S extends z.ZodType> = z.input<S>;

export const responses: [
  Same<Out<typeof customerSchema>, sdk.Customer>,
  Same<Out<ReturnType<typeof pageOf<typeof customerSchema>>>, sdk.Page<sdk.Customer>>,
  Same<Out<typeof walletDetailSchema>, sdk.Wallet>,
  [Out<typeof walletSchema>] extends [sdk.Wallet] ? true : false,
  Same<Out<typeof apiKeySchema>, sdk.ApiKey>,
  Same<Out<typeof createdApiKeySchema>, sdk.CreatedApiKey>,
  Same<Out<typeof messageSchema>, sdk.RevokedApiKey>,
  Same<Out<typeof chainListSchema>, sdk.ChainList>,
  Same<Out<typeof chainListSchema>['data'][number]['assets'][number], sdk.ChainAsset>,
  Same<Out<typeof balanceListSchema>, sdk.BalanceList>,
  Same<Out<typeof feeQuoteSchema>, sdk.FeeQuote>,
  Same<Out<typeof webhookSchema>, sdk.WebhookEndpoint>,
  Same<Out<typeof createdWebhookSchema>, sdk.CreatedWebhookEndpoint>,
  Same<Out<typeof rotatedWebhookSchema>, sdk.RotatedWebhookEndpoint>,
  Same<Out<typeof deliverySchema>, sdk.WebhookDelivery>,
  Same<Out<typeof redeliveredSchema>, sdk.RedeliveredFailed>,
  Same<Out<typeof dripSchema>, sdk.Drip>,
  Same<Out<typeof commitmentOverviewSchema>, sdk.CommitmentOverview>,
  Same<NonNullable<Out<typeof commitmentOverviewSchema>['commitment']>, sdk.Commitment>,
  Same<NonNullable<Out<typeof commitmentOverviewSchema>['current_period']>, sdk.CommitmentPeriod>,
  Same<Out<typeof commitmentOverviewSchema>['adjustments'][number], sdk.CommitmentAdjustment>,
] = [true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true, true];

export const requests: [
  Accepted<sdk.CreateCustomerParams, In<typeof customerBody>>,
  Accepted<sdk.UpdateCustomerParams, In<typeof customerPatch>>,
  Accepted<sdk.CreateWalletParams, In<typeof walletBody>>,
  Accepted<sdk.CreateApiKeyParams, In<typeof apiKeyBody>>,
  Accepted<sdk.QuoteFeeParams, In<typeof quoteBody>>,
  Accepted<sdk.CreateWebhookEndpointParams, In<typeof webhookBody>>,
  Accepted<sdk.UpdateWebhookEndpointParams, In<typeof webhookPatch>>,
  Accepted<sdk.RedeliverFailedParams, In<typeof redeliverFailedBody>>,
  Accepted<sdk.RequestDripParams, In<typeof dripBody>>,
] = [true, true, true, true, true, true, true, true, true];

describe('the SDK types', () => {
  it('are checked against the service schemas by the typecheck: every pair above holds', () => {
    expect([...responses, ...requests].every((ok) => ok === true)).toBe(true);
  });
});
