// Items of a chain-worker step advanced several at once (sweeps, outgoing
// transfers): each in its own unit of work, their calls to the node going out
// together. A node that is down (the error aloneOnError lets through) ends the
// step: the items not yet started wait for the next one, and the error is
// thrown once those running have finished.
import pLimit from 'p-limit';

export async function eachAtOnce<T>(items: readonly T[], concurrency: number, work: (item: T) => Promise<unknown>): Promise<void> {
  const limit = pLimit(Math.max(1, concurrency));
  let down = false;
  const results = await Promise.allSettled(
    items.map((item) =>
      limit(async () => {
        if (down) return;
        await work(item).catch((err: unknown) => {
          down = true;
          throw err;
        });
      }),
    ),
  );
  const failure = results.find((r): r is PromiseRejectedResult => r.status === 'rejected');
  if (failure) throw failure.reason;
}
