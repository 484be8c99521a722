// ops ledger check: the reconciliation report of the ledger.
import { inject, injectable } from 'tsyringe';
import type { LedgerAudit, LedgerCheckReport } from '../../domain/ledger/ports.js';
import { TOKENS } from '../tokens.js';

@injectable()
export class CheckLedger {
  constructor(@inject(TOKENS.LedgerAudit) private readonly audit: LedgerAudit) {}

  execute(): Promise<LedgerCheckReport> {
    return this.audit.check();
  }
}
