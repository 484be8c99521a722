// Members' roles and invitations (issue 32, ADR 0033).
import { describe, expect, it } from 'vitest';
import { newInvitation, unusable } from '../../../src/domain/members/invitation.js';
import { isEmail, may, normalEmail } from '../../../src/domain/members/member.js';

describe('members', () => {
  it('gives OWNER everything, APPROVER approvals and reading, VIEWER reading only', () => {
    expect(['read', 'approve', 'manage'].map((a) => may('OWNER', a as never))).toEqual([true, true, true]);
    expect(['read', 'approve', 'manage'].map((a) => may('APPROVER', a as never))).toEqual([true, true, false]);
    expect(['read', 'approve', 'manage'].map((a) => may('VIEWER', a as never))).toEqual([true, false, false]);
  });

  it('keys members by their email in lower case, and takes only plausible ones', () => {
    expect(normalEmail('  Owner@Example.COM ')).toBe('owner@example.com');
    expect(['a@b.co', 'first.last@example.com'].map(isEmail)).toEqual([true, true]);
    expect(['', 'a@b', 'a b@c.d', '@b.co', `${'a'.repeat(320)}@b.co`].map(isEmail)).toEqual([false, false, false, false, false]);
  });

  it('lets an invitation be used once, within 72 hours, unless replaced', () => {
    const at = new Date('2026-11-27T12:00:00Z');
    const i = newInvitation({ id: 'i', workspaceId: 'w', email: 'a@b.co', role: 'OWNER', tokenHash: 'h', invitedBy: null, createdAt: at });
    expect(i.expiresAt).toEqual(new Date('2026-11-30T12:00:00Z'));
    expect(unusable(i, new Date('2026-11-30T11:59:59Z'))).toBeNull();
    expect(unusable(i, new Date('2026-11-30T12:00:00Z'))).toBe('expired');
    expect(unusable({ ...i, acceptedAt: at }, at)).toBe('accepted');
    expect(unusable({ ...i, revokedAt: at }, at)).toBe('revoked');
  });
});
