import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { IdRow } from './rows.ts';

type PrincipalType = 'user' | 'client';

const TakenRow = z.strictObject({ taken: z.boolean() });

/** Is this email already used by a principal of this type? */
export function isEmailTaken(db: CommonQueryMethods, type: PrincipalType, email: string) {
  return db.oneFirst(sql.type(TakenRow)`
    SELECT EXISTS (SELECT 1 FROM users WHERE type = ${type} AND email = ${email.toLowerCase()}) AS taken`);
}

/**
 * Inserts a principal; answers false (and changes nothing) when the email is taken for this
 * type, so two concurrent registrations of one email cannot both succeed.
 */
export async function insertPrincipal(
  db: CommonQueryMethods,
  principal: {
    id: string;
    organizationId: string;
    type: PrincipalType;
    email: string;
    name: string;
    passwordHash: string | null;
    googleSubject?: string | null;
    emailVerified: boolean;
  },
): Promise<boolean> {
  const inserted = await db.maybeOneFirst(sql.type(IdRow)`
    INSERT INTO users (id, organization_id, type, email, name, password_hash, google_subject, email_verified_at)
    VALUES (${principal.id}, ${principal.organizationId}, ${principal.type}, ${principal.email.toLowerCase()},
            ${principal.name}, ${principal.passwordHash}, ${principal.googleSubject ?? null},
            ${principal.emailVerified ? sql.fragment`now()` : null})
    ON CONFLICT (type, email) DO NOTHING
    RETURNING id`);
  return inserted !== null;
}

const Unverified = z.strictObject({ id: z.string(), emailVerified: z.boolean() });

/** The principal of this type with this email, locked so that one verification attempt runs at a time. */
export function findPrincipalForVerification(db: CommonQueryMethods, type: PrincipalType, email: string) {
  return db.maybeOne(sql.type(Unverified)`
    SELECT id, email_verified_at IS NOT NULL AS "emailVerified"
    FROM users WHERE type = ${type} AND email = ${email.toLowerCase()}
    FOR UPDATE`);
}

export function markEmailVerified(db: CommonQueryMethods, userId: string) {
  return db.query(sql.unsafe`
    UPDATE users SET email_verified_at = COALESCE(email_verified_at, now()), updated_at = now() WHERE id = ${userId}`);
}

const PasswordHashRow = z.strictObject({ passwordHash: z.string().nullable() });

export function findPasswordHash(db: CommonQueryMethods, userId: string) {
  return db.maybeOneFirst(sql.type(PasswordHashRow)`
    SELECT password_hash AS "passwordHash" FROM users WHERE id = ${userId}`);
}

export function updatePasswordHash(db: CommonQueryMethods, userId: string, passwordHash: string) {
  return db.query(sql.unsafe`UPDATE users SET password_hash = ${passwordHash}, updated_at = now() WHERE id = ${userId}`);
}

const GoogleCandidate = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  type: z.enum(['user', 'client']),
  googleSubject: z.string().nullable(),
  emailVerified: z.boolean(),
});

/** Principals of this type matching the Google account by subject or by email, subject match first. */
export function findGoogleCandidates(db: CommonQueryMethods, type: PrincipalType, subject: string, email: string) {
  return db.any(sql.type(GoogleCandidate)`
    SELECT id, organization_id AS "organizationId", type, google_subject AS "googleSubject",
           email_verified_at IS NOT NULL AS "emailVerified"
    FROM users
    WHERE type = ${type} AND (google_subject = ${subject} OR email = ${email.toLowerCase()})
    ORDER BY (google_subject = ${subject}) DESC NULLS LAST
    FOR UPDATE`);
}

/**
 * Links a Google account to a principal and marks the email verified. A password set on a
 * never-verified account was not proven by the mailbox owner, so it is dropped (this stops an
 * account pre-hijacking through a registration made with someone else's email).
 */
export function linkGoogleAccount(db: CommonQueryMethods, userId: string, subject: string, dropPassword: boolean) {
  return db.query(sql.unsafe`
    UPDATE users
    SET google_subject = ${subject},
        password_hash = CASE WHEN ${dropPassword} THEN NULL ELSE password_hash END,
        email_verified_at = COALESCE(email_verified_at, now()),
        updated_at = now()
    WHERE id = ${userId}`);
}

export function findRoleIdByName(db: CommonQueryMethods, name: string) {
  return db.maybeOneFirst(sql.type(IdRow)`SELECT id FROM roles WHERE name = ${name}`);
}

export function grantRole(db: CommonQueryMethods, userId: string, roleId: string) {
  return db.query(sql.unsafe`INSERT INTO user_roles (user_id, role_id) VALUES (${userId}, ${roleId}) ON CONFLICT DO NOTHING`);
}
