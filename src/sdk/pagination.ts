// Walking a list endpoint to its end (docs/api.md#pagination): every list
// answers the envelope { total, page, limit, data } for a page number, newest
// first. A PageIterator asks for page after page until the last one and
// yields each record once.
import type { Page, PageParams, WithResponse } from './types.js';

/** The filters of a list, without `page`: the iterator chooses the pages; `limit` is the page size (default 100, the most the API allows). */
export type ListParams<P extends PageParams> = Omit<P, 'page'>;

/** Fetches one page of a list, the filters already bound. */
export type PageFetcher<T> = (page: number, limit: number) => Promise<WithResponse<Page<T>>>;

export const ITERATION_PAGE_SIZE = 100;

/**
 * `for await (const wallet of client.wallets.list({ chain: 'ETH' }))`.
 *
 * Pages are numbered and the lists are newest first, so a record created
 * while the walk goes on pushes older records one place down: a record may
 * then come again on the next page. The iterator skips any id it has
 * already yielded, so each record comes once. A record that leaves the list
 * meanwhile (a wallet archived during the walk of active wallets) pulls the
 * later ones up one place and one of them may be missed: walk a list whose
 * members do not change under the filter, or walk it again.
 *
 * Each page is a signed GET with its own query (page=N), so no two requests
 * of one walk are the same signed request.
 */
export class PageIterator<T extends { id: string }> implements AsyncIterable<T> {
  constructor(
    private readonly fetchPage: PageFetcher<T>,
    private readonly limit: number = ITERATION_PAGE_SIZE,
  ) {}

  /** The raw pages, each with its `total` and `lastResponse`, until the last one. */
  async *pages(): AsyncGenerator<WithResponse<Page<T>>, void, undefined> {
    for (let page = 1; ; page++) {
      const answer = await this.fetchPage(page, this.limit);
      yield answer;
      // `total` is re-read on every page: records added meanwhile make it grow and the walk go on.
      const lastPage = answer.data.length === 0 || answer.data.length < answer.limit || page * answer.limit >= answer.total;
      if (lastPage) return;
    }
  }

  async *[Symbol.asyncIterator](): AsyncGenerator<T, void, undefined> {
    const seen = new Set<string>();
    for await (const page of this.pages()) {
      for (const record of page.data) {
        if (seen.has(record.id)) continue;
        seen.add(record.id);
        yield record;
      }
    }
  }

  /** Every record, in the list's order. Mind the size of what you collect. */
  async toArray(): Promise<T[]> {
    const all: T[] = [];
    for await (const record of this) all.push(record);
    return all;
  }
}
