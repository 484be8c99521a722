// Pagination of every list endpoint (docs/api.md#pagination): page from 1, limit
// 1..100 (default 20), newest first with ties broken by id.
export const PAGE_DEFAULT_LIMIT = 20;
export const PAGE_MAX_LIMIT = 100;
/** The highest page number: far beyond any real page, and it keeps the offset an exact integer. */
export const PAGE_MAX = 1_000_000_000_000_000;

export interface PageRequest {
  page: number;
  limit: number;
}

export interface Page<T> {
  total: number;
  page: number;
  limit: number;
  data: T[];
}

export const offsetOf = (p: PageRequest): number => (p.page - 1) * p.limit;

export const mapPage = <A, B>(page: Page<A>, f: (a: A) => B): Page<B> => ({ ...page, data: page.data.map(f) });
