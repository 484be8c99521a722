// ops chain enable | disable --chain NETWORK (docs/operations.md#networks): new
// wallets and withdrawals only; monitoring of existing addresses never stops.
import { z } from 'zod';
import { SetNetworkEnabled } from '../../application/chains/set-network-enabled.js';
import { NETWORKS } from '../../domain/money/networks.js';
import { defineCommand, type OpsCommand } from './command.js';

const toggle = (action: 'enable' | 'disable') =>
  defineCommand({
    path: ['chain', action],
    summary: `${action === 'enable' ? 'Enable' : 'Disable'} a network for new wallets and withdrawals (--chain ETH_TESTNET)`,
    flags: { chain: { type: 'string' } },
    input: z.object({ chain: z.enum(NETWORKS) }),
    async run(ctx, input) {
      await ctx.resolve(SetNetworkEnabled).execute(input.chain, action === 'enable');
      return { chain: input.chain, enabled: action === 'enable' };
    },
  });

export const CHAIN_COMMANDS: OpsCommand[] = [toggle('enable'), toggle('disable')];
