// A deposit's timeline for the dashboard (issue 32). No history of a
// deposit's state changes is stored: the steps come from the times the
// deposit itself holds (detected_at; confirmed_at, when it was credited;
// swept_at) and, for where it stopped otherwise (failed, flagged, rejected),
// its updated_at. A step that left no time of its own (flagged, then
// released and credited) shows only through the steps that did.
import type { Deposit } from '../../domain/deposits/deposit.js';

export interface TimelineStep {
  label: string;
  at: Date;
  detail: string | null;
}

const ENDS: Partial<Record<Deposit['status'], string>> = {
  FAILED: 'Failed: its block was reorganised out and the transfer is gone',
  FLAGGED: 'Flagged: the sender is on the deny list; not credited unless released',
  REJECTED: 'Rejected: not credited',
};

export function depositTimeline(d: Deposit): TimelineStep[] {
  const steps: TimelineStep[] = [{ label: 'Detected', at: d.detectedAt, detail: `in block ${d.blockNumber}` }];
  if (d.confirmedAt) steps.push({ label: 'Confirmed and credited', at: d.confirmedAt, detail: `${d.requiredConfirmations} confirmations` });
  if (d.sweptAt) steps.push({ label: 'Swept to the treasury', at: d.sweptAt, detail: null });
  const end = ENDS[d.status];
  if (end) steps.push({ label: end, at: d.updatedAt, detail: 'time of the last change' });
  return steps.sort((a, b) => a.at.getTime() - b.at.getTime());
}
