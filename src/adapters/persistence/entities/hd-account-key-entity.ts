// Table `hd_account_keys`: the public key (xpub) of each account branch
// m/44'/coin'/account'/change that the api derives addresses from without a
// seed. The chain-worker records them ahead of the account sequence, for
// both coin types, and for the service branch (account 0, change 1)
// (docs/adr/0026-keys-only-where-signing-happens.md). Public keys only.
import { EntitySchema } from '@mikro-orm/core';

export interface HdAccountKey {
  coinType: number;
  account: number;
  change: number;
  xpub: string;
  createdAt: Date;
}

export const HdAccountKeyEntity = new EntitySchema<HdAccountKey>({
  name: 'HdAccountKey',
  tableName: 'hd_account_keys',
  checks: [
    { name: 'hd_account_keys_coin_type_check', expression: 'coin_type in (60, 195)' },
    { name: 'hd_account_keys_change_check', expression: '"change" in (0, 1)' },
  ],
  properties: {
    coinType: { type: 'integer', primary: true },
    account: { type: 'integer', primary: true },
    change: { type: 'integer', primary: true },
    xpub: { type: 'text' },
    createdAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
