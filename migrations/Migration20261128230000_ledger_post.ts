import { Migration } from '@mikro-orm/migrations';

/**
 * Issue 35: posting a journal entry in one round trip. The function does what PgLedgerRepo.post did statement
 * by statement: the entry (its unique reference makes a second post 'duplicate', changing nothing), each
 * account's move in the order given (the caller sorts them: row locks in a fixed order, no deadlocks) — a debit
 * of a guarded account (AVAILABLE, LOCKED) a conditional UPDATE that never goes below zero, anything else an
 * upsert — and a posting per account. A guarded debit the balance does not cover raises SQLSTATE WL001, which
 * aborts the caller's transaction: nothing of the entry stays.
 */
export class Migration20261128230000_ledger_post extends Migration {
  override async up(): Promise<void> {
    this.addSql(`create function ledger_post(entry_id uuid, kind_ text, reference_ text, workspace uuid, network_ text, asset_ text, at timestamptz,
    owners text[], kinds text[], networks text[], assets text[], amounts numeric[], guarded boolean[])
  returns text
  language plpgsql volatile as $fn$
declare
  i int;
  account int;
begin
  insert into journal_entries (id, kind, reference, workspace_id, network, asset, created_at)
    values (entry_id, kind_, reference_, workspace, network_, asset_, at)
    on conflict (reference) do nothing;
  if not found then
    return 'duplicate';
  end if;
  for i in 1 .. coalesce(array_length(amounts, 1), 0) loop
    if guarded[i] and amounts[i] < 0 then
      update ledger_accounts set balance = balance + amounts[i]
       where owner = owners[i] and kind = kinds[i] and network = networks[i] and asset = assets[i] and balance + amounts[i] >= 0
      returning id into account;
      if not found then
        raise exception 'Insufficient % balance of %', lower(kinds[i]), assets[i] using errcode = 'WL001';
      end if;
    else
      insert into ledger_accounts as l (owner, kind, network, asset, balance) values (owners[i], kinds[i], networks[i], assets[i], amounts[i])
        on conflict on constraint ledger_accounts_identity_unique do update set balance = l.balance + excluded.balance
      returning id into account;
    end if;
    insert into postings (entry_id, account_id, amount) values (ledger_post.entry_id, account, amounts[i]);
  end loop;
  return 'posted';
end
$fn$;`);
  }

  override async down(): Promise<void> {
    this.addSql(`drop function if exists ledger_post(uuid, text, text, uuid, text, text, timestamptz, text[], text[], text[], text[], numeric[], boolean[]);`);
  }
}
