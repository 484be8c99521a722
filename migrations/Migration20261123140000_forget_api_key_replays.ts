import { Migration } from '@mikro-orm/migrations';

// POST /v2/api-keys is no longer idempotent: its stored replays held the new
// keys' secrets in clear. Forget them (nothing can replay them any more).
export class Migration20261123140000_forget_api_key_replays extends Migration {
  override async up(): Promise<void> {
    this.addSql(`delete from "idempotency_keys" where "path" = '/v2/api-keys';`);
  }

  override async down(): Promise<void> {
    // Nothing to restore: the deleted rows are not wanted back.
  }
}
