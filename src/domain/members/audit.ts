// The dashboard's audit log (issue 32, ADR 0033): who did what, when, from
// which address, with the state before and after. Append-only; owners read
// and export it. Operator commands that change an owner's settings are
// recorded too, with the operator as the actor. Pure.

/** Who acted: a member (with the address the request came from) or the operator's command line. */
export interface Actor {
  memberId: string | null;
  /** The member's email, or "operator". */
  label: string;
  /** The request's address, or "ops" for the command line. */
  source: string;
}

export const OPERATOR: Actor = { memberId: null, label: 'operator', source: 'ops' };

export interface AuditEntry {
  id: string;
  workspaceId: string;
  actor: Actor;
  /** What was done, e.g. "policy.set", "beneficiary.add", "withdrawal.approve", "member.sign-in". */
  action: string;
  /** What it was done to (a withdrawal id, an address, an email), when it names one. */
  target: string | null;
  before: unknown;
  after: unknown;
  at: Date;
}
