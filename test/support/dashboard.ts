// The dashboard as tests drive it over real HTTP (issue 32): members made
// through the real invitation and enrolment use cases, TOTP codes computed
// from their secret (each step used once, as the service demands), and a
// client that keeps its cookie and sends each form's CSRF token.
import { generate } from 'otplib';
import { AcceptInvitation } from '../../src/application/members/accept-invitation.js';
import { InviteMember } from '../../src/application/members/invite-member.js';
import type { MemberRole } from '../../src/domain/members/member.js';
import type { RunningApi } from '../../src/bootstrap/api.js';

export interface TestMember {
  email: string;
  password: string;
  role: MemberRole;
  workspaceId: string;
  secret: string;
  recoveryCodes: string[];
  /** The next TOTP code no one has used yet (waits for the next 30 s step when it must: use recovery() where speed matters). */
  code(): Promise<string>;
  /** One of the member's recovery codes not used yet. */
  recovery(): string;
}

let serial = 0;

/** A TOTP generator for one secret that never hands out a step twice: the service accepts each once. */
export function codesOf(secret: string): () => Promise<string> {
  let lastStep = -1;
  return async () => {
    // The service accepts one step either side of its clock, and each step once, in increasing order: so the step
    // before now while at least 5 s of now remain (a request on a busy machine may take that long to be read),
    // now, and the next. Three codes per 30 s, then a wait.
    const now = Math.floor(Date.now() / 30_000);
    const leftOfNow = (now + 1) * 30_000 - Date.now();
    let step = Math.max(now - 1, lastStep + 1);
    if (step < now && leftOfNow < 5_000) step = now;
    while (step > Math.floor(Date.now() / 30_000) + 1) await new Promise((r) => setTimeout(r, 1000));
    lastStep = step;
    return generate({ secret, epoch: step * 30 });
  };
}

/** Invites and enrols a member through the use cases the dashboard calls. */
export async function createMember(api: RunningApi, workspaceId: string, role: MemberRole, email = `member${++serial}-${Date.now()}@example.com`): Promise<TestMember> {
  const c = api.infra.container;
  const invite = await c.resolve(InviteMember).execute({ workspaceId, email, role, invitedBy: null });
  const token = invite.link.split('/').pop()!;
  const accept = c.resolve(AcceptInvitation);
  const enrolment = await accept.open(token);
  const code = codesOf(enrolment.secret);
  const password = `pw-${email}-long enough`;
  const { recoveryCodes } = await accept.accept({ token, sealed: enrolment.sealed, password, code: await code(), source: '127.0.0.1' });
  const spare = [...recoveryCodes];
  return { email, password, role, workspaceId, secret: enrolment.secret, recoveryCodes, code, recovery: () => spare.shift()! };
}

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
  location: string | null;
}

/** A browser-like client: one cookie jar, redirects not followed (tests look at them), forms sent urlencoded with the CSRF token of the last page. */
export class DashboardClient {
  cookie: string | null = null;
  csrf: string | null = null;

  constructor(readonly baseUrl: string) {}

  async get(path: string): Promise<Answer> {
    return this.send('GET', path);
  }

  /** Posts a form; `_csrf` is the last page's unless the fields give one. */
  async post(path: string, fields: Record<string, string> = {}, headers: Record<string, string> = {}): Promise<Answer> {
    const body = new URLSearchParams({ ...(this.csrf ? { _csrf: this.csrf } : {}), ...fields });
    return this.send('POST', path, body.toString(), { 'content-type': 'application/x-www-form-urlencoded', ...headers });
  }

  /** Signs in with `code`, by default one of the member's recovery codes (a TOTP code may mean waiting for the next step). */
  async signIn(m: TestMember, code?: string): Promise<Answer> {
    const r = await this.post('/dashboard/sign-in', { email: m.email, password: m.password, code: code ?? m.recovery() });
    if (r.status === 303 && r.location === '/dashboard/security') await this.get('/dashboard/security');
    return r;
  }

  private async send(method: string, path: string, body?: string, headers: Record<string, string> = {}): Promise<Answer> {
    const res = await fetch(this.baseUrl + path, { method, body, redirect: 'manual', headers: { ...(this.cookie ? { cookie: this.cookie } : {}), ...headers } });
    for (const set of res.headers.getSetCookie()) {
      const [pair] = set.split(';');
      const [name, value] = pair!.split('=');
      if (!name!.includes('wallet_session')) continue;
      this.cookie = value ? `${name}=${value}` : null;
    }
    const text = await res.text();
    const csrf = /name="_csrf" value="([^"]+)"/.exec(text)?.[1];
    if (csrf) this.csrf = csrf;
    return { status: res.status, headers: res.headers, text, location: res.headers.get('location') };
  }
}
