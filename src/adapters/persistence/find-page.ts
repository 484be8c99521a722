// One page of a list, newest first (ties broken by id), and its total, at a
// cost that does not grow with the workspace's rows (ADR 0036):
// - the page is read in the order of an index: one ordered read per network
//   when the list spans several (each stops after offset + limit rows), merged;
//   a page k deep reads k pages of index, whatever the table holds;
// - the total of a workspace-wide list is the sum of its counters
//   (list_counts, kept by triggers); a list narrowed to one wallet, customer
//   or external reference counts that owner's rows on its own index.
import type { EntityManager, EntityName } from '@mikro-orm/postgresql';
import { offsetOf, type Page, type PageRequest } from '../../domain/pagination.js';
import { pgArrayLiteral } from './pg-array.js';
import { executeBound } from './sql.js';

export interface PageQuery {
  table: string;
  /** The columns read; `id` when the rows are then loaded as entities. */
  columns: string;
  /** The time column the list is sorted by, newest first. */
  orderBy: string;
  /** Every condition but the network, with `?` placeholders. */
  where: string;
  params: unknown[];
  /** The networks of the list, each read on its own (workspace, network, …, time) index and merged. */
  networks?: readonly string[];
}

/** One read of a merged page: rows with `id` and `page_order`, sorted newest first (ties by id), not yet cut. */
export interface OrderedRead {
  sql: string;
  params: unknown[];
}

/**
 * One page of several ordered reads merged (ADR 0036): each read is cut after offset + limit rows, so each walks
 * its own index no deeper than the page, and the page is taken from their union in the same order.
 */
export function mergedPage<T extends object>(em: EntityManager, reads: readonly OrderedRead[], page: PageRequest): Promise<T[]> {
  if (reads.length === 0) return Promise.resolve([]);
  const offset = offsetOf(page);
  return executeBound<T>(em, `select * from (${reads.map((r) => `(${r.sql} limit ?)`).join(' union all ')}) u order by page_order desc, id desc limit ? offset ?`, [
    ...reads.flatMap((r) => [...r.params, offset + page.limit]),
    page.limit,
    offset,
  ]);
}

/** The rows of one page, in the list's order: one read per network when the query names them. */
export function pageRows<T extends object>(em: EntityManager, q: PageQuery, page: PageRequest): Promise<T[]> {
  const read = (extra: string, params: unknown[]): OrderedRead => ({
    sql: `select ${q.columns}, ${q.orderBy} as page_order from ${q.table} where ${q.where}${extra} order by ${q.orderBy} desc, id desc`,
    params: [...q.params, ...params],
  });
  const reads = q.networks === undefined ? [read('', [])] : q.networks.map((n) => read(' and network = ?', [n]));
  return mergedPage<T>(em, reads, page);
}

/** Where a page's records come from: ORM entities, or the list's table's rows mapped to the domain (no entity hydrated). */
export type PageSource<T> = EntityName<T> | { fromRow: (row: Record<string, unknown>) => T };

const isRowSource = <T>(s: PageSource<T>): s is { fromRow: (row: Record<string, unknown>) => T } => typeof s === 'object' && s !== null && 'fromRow' in s;

/** The records of `ids` of `table`, in that order. */
export async function loadInOrder<T extends { id: string }>(em: EntityManager, source: PageSource<T>, table: string, ids: readonly string[]): Promise<T[]> {
  if (ids.length === 0) return [];
  const found = isRowSource(source)
    ? (await executeBound<Record<string, unknown>>(em, `select * from ${table} where id = any(?::uuid[])`, [pgArrayLiteral([...ids])])).map(source.fromRow)
    : ((await em.find(source, { id: { $in: [...ids] } } as never)) as T[]);
  const byId = new Map(found.map((e) => [e.id, e]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

/** The counted lists (the triggers of Migration20261128090000_list_counts). */
export type CountedList = 'deposits' | 'withdrawals' | 'wallets' | 'customers' | 'webhook_deliveries';

export interface CountMatch {
  /** The networks counted ('live'/'test' for customers); all when absent. */
  networks?: readonly string[];
  status?: string;
  /** Every status but this one (the wallets list hides ARCHIVED unless asked). */
  notStatus?: string;
  asset?: string;
}

/** The number of the owner's rows of `list` that match, from its counters. */
export async function countOf(em: EntityManager, list: CountedList, owner: string, match: CountMatch = {}): Promise<number> {
  const conds = ['list = ?', 'owner = ?'];
  const params: unknown[] = [list, owner];
  if (match.networks) {
    if (match.networks.length === 0) return 0;
    conds.push('network = any(?::text[])');
    params.push(pgArrayLiteral(match.networks));
  }
  if (match.status !== undefined) {
    conds.push('status = ?');
    params.push(match.status);
  }
  if (match.notStatus !== undefined) {
    conds.push('status <> ?');
    params.push(match.notStatus);
  }
  if (match.asset !== undefined) {
    conds.push('asset = ?');
    params.push(match.asset);
  }
  const [row] = await executeBound<{ n: string }>(em, `select coalesce(sum(n), 0)::text as n from list_counts where ${conds.join(' and ')}`, params);
  return Number(row?.n ?? 0);
}

/** An exact count of a list narrowed to one wallet, customer or reference: bounded by that owner's rows, read on its index. */
export async function countRows(em: EntityManager, table: string, where: string, params: unknown[]): Promise<number> {
  const [row] = await executeBound<{ n: string }>(em, `select count(*)::text as n from ${table} where ${where}`, params);
  return Number(row?.n ?? 0);
}

/**
 * Folds the counters: each group's deltas become one row. Run by the dispatcher every minute; safe beside writers
 * (a delta committed after the delete began is left for the next fold) and beside another fold (a row is deleted,
 * and so summed, once).
 */
export async function foldListCounts(em: EntityManager): Promise<number> {
  const [row] = await executeBound<{ folded: string }>(
    em,
    `with gone as (
       delete from list_counts where (list, owner) in (select list, owner from list_counts group by list, owner having count(*) > count(distinct (network, status, asset)))
       returning list, owner, network, status, asset, n),
     kept as (
       insert into list_counts (list, owner, network, status, asset, n)
       select list, owner, network, status, asset, sum(n) from gone group by list, owner, network, status, asset having sum(n) <> 0
       returning 1)
     select (select count(*) from gone)::text as folded`,
    [],
  );
  return Number(row?.folded ?? 0);
}

/** One page of entities: their ids read in the list's order, then the rows by id; the total from `count`. */
export async function findPage<T extends { id: string }>(
  em: EntityManager,
  entity: PageSource<T>,
  q: Omit<PageQuery, 'columns'>,
  count: () => Promise<number>,
  page: PageRequest,
): Promise<Page<T>> {
  const ids = await pageRows<{ id: string }>(em, { ...q, columns: 'id' }, page);
  const data = await loadInOrder(em, entity, q.table, ids.map((r) => r.id));
  return { total: await count(), page: page.page, limit: page.limit, data };
}

/** `column = ?` for each defined value, after `base`: a where clause and its parameters. */
export function conditions(base: Record<string, unknown>, optional: Record<string, unknown> = {}): { where: string; params: unknown[] } {
  const pairs = [...Object.entries(base), ...Object.entries(optional).filter(([, v]) => v !== undefined)];
  return { where: pairs.map(([c]) => `${c} = ?`).join(' and '), params: pairs.map(([, v]) => v) };
}

export interface WorkspaceList {
  table: string;
  list: CountedList;
  orderBy: string;
  workspaceId: string;
  /** The key's networks the list covers (the chain filter already applied). */
  networks: readonly string[];
  status?: string;
  /** Every status but this one, when `status` is not given. */
  notStatus?: string;
  asset?: string;
  /** Filters to one wallet or customer: the page and the total read that owner's rows on its own index. */
  narrow?: Record<string, string | undefined>;
}

/** A workspace's list: pages merged across its networks, the total from the counters, or from the narrowed owner's rows. */
export async function pageOfList<T extends { id: string }>(em: EntityManager, entity: PageSource<T>, l: WorkspaceList, page: PageRequest): Promise<Page<T>> {
  if (l.networks.length === 0) return { total: 0, page: page.page, limit: page.limit, data: [] };
  const narrowed = Object.values(l.narrow ?? {}).some((v) => v !== undefined);
  const notStatus = l.status === undefined ? l.notStatus : undefined;
  const c = conditions({ workspace_id: l.workspaceId }, { status: l.status, asset: l.asset, ...l.narrow });
  const where = c.where + (notStatus === undefined ? '' : ' and status <> ?');
  const params = [...c.params, ...(notStatus === undefined ? [] : [notStatus])];
  if (narrowed) {
    const inNetworks = { where: `${where} and network = any(?::text[])`, params: [...params, pgArrayLiteral(l.networks)] };
    return findPage(em, entity, { table: l.table, orderBy: l.orderBy, ...inNetworks }, () => countRows(em, l.table, inNetworks.where, inNetworks.params), page);
  }
  const match = { networks: l.networks, status: l.status, notStatus, asset: l.asset };
  return findPage(em, entity, { table: l.table, orderBy: l.orderBy, where, params, networks: l.networks }, () => countOf(em, l.list, l.workspaceId, match), page);
}
