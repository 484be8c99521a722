// Every operator command, in the order `npm run ops` lists them: the ops
// entrypoint runs them, and the tests walk the list (every command answers
// --help without a database).
import type { OpsCommand } from './command.js';
import { CHAIN_COMMANDS } from './chain-commands.js';
import { COMMITMENT_COMMANDS } from './commitment-commands.js';
import { DEPOSIT_COMMANDS } from './deposit-commands.js';
import { ENERGY_COMMANDS } from './energy-commands.js';
import { FAUCET_COMMANDS } from './faucet-commands.js';
import { MEMBER_COMMANDS } from './member-commands.js';
import { MONEY_COMMANDS } from './money-commands.js';
import { RECONCILE_COMMANDS } from './reconcile-commands.js';
import { SECURITY_COMMANDS } from './security-commands.js';
import { SWEEP_COMMANDS } from './sweep-commands.js';
import { TREASURY_COMMANDS } from './treasury-commands.js';
import { UNEXPECTED_COMMANDS } from './unexpected-commands.js';
import { WITHDRAWAL_COMMANDS } from './withdrawal-commands.js';
import { WORKSPACE_COMMANDS } from './workspace-commands.js';

export const OPS_COMMANDS: OpsCommand[] = [
  ...WORKSPACE_COMMANDS,
  ...CHAIN_COMMANDS,
  ...MONEY_COMMANDS,
  ...SECURITY_COMMANDS,
  ...DEPOSIT_COMMANDS,
  ...UNEXPECTED_COMMANDS,
  ...MEMBER_COMMANDS,
  ...SWEEP_COMMANDS,
  ...ENERGY_COMMANDS,
  ...TREASURY_COMMANDS,
  ...WITHDRAWAL_COMMANDS,
  ...FAUCET_COMMANDS,
  ...COMMITMENT_COMMANDS,
  ...RECONCILE_COMMANDS,
];
