// One page of a list, newest first (ties broken by id), and the total. The
// two queries run one after the other, not in parallel as MikroORM's
// findAndCount does: inside a transaction both would share one connection.
import type { EntityManager, EntityName, FilterQuery } from '@mikro-orm/postgresql';
import { offsetOf, type Page, type PageRequest } from '../../domain/pagination.js';

export async function findPage<T extends object>(
  em: EntityManager,
  entity: EntityName<T>,
  where: FilterQuery<T>,
  page: PageRequest,
): Promise<Page<T>> {
  const orderBy = { createdAt: 'desc', id: 'desc' } as never;
  const data = await em.find(entity, where, { orderBy, limit: page.limit, offset: offsetOf(page) });
  const total = await em.count(entity, where);
  return { total, page: page.page, limit: page.limit, data };
}
