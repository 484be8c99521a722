// ListCounters in PostgreSQL: the fold of list_counts (find-page.ts), on a
// connection of its own, outside any unit of work.
import type { MikroORM } from '@mikro-orm/postgresql';
import type { ListCounters } from '../../domain/ports.js';
import { foldListCounts } from './find-page.js';

export class PgListCounters implements ListCounters {
  constructor(private readonly orm: MikroORM) {}

  fold(): Promise<number> {
    return foldListCounts(this.orm.em.fork());
  }
}
