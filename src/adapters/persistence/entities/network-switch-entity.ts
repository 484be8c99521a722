// Table `network_switches`: the operator's enable/disable of a network for new
// wallets and withdrawals (ops chain enable|disable); absent means the default.
import { EntitySchema } from '@mikro-orm/core';

export interface NetworkSwitch {
  network: string;
  enabled: boolean;
  updatedAt: Date;
}

export const NetworkSwitchEntity = new EntitySchema<NetworkSwitch>({
  name: 'NetworkSwitch',
  tableName: 'network_switches',
  properties: {
    network: { type: 'text', primary: true },
    enabled: { type: 'boolean' },
    updatedAt: { type: 'Date', columnType: 'timestamptz' },
  },
});
