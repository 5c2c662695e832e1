import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const principalType = z.enum(['user', 'client']);

const LoginCandidate = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  type: principalType,
  email: z.string(),
  passwordHash: z.string().nullable(),
  emailVerified: z.boolean(),
});
export type LoginCandidate = z.infer<typeof LoginCandidate>;

/** The principal of this type that signs in with this email, if any. */
export function findLoginCandidate(db: CommonQueryMethods, type: 'user' | 'client', email: string) {
  return db.maybeOne(sql.type(LoginCandidate)`
    SELECT id, organization_id AS "organizationId", type, email, password_hash AS "passwordHash",
           email_verified_at IS NOT NULL AS "emailVerified"
    FROM users
    WHERE type = ${type} AND email = ${email.toLowerCase()}`);
}

const TokenSubject = z.strictObject({ id: z.string(), organizationId: z.string(), type: principalType });

/** What an access token is signed for: looked up again at every refresh. */
export function findTokenSubject(db: CommonQueryMethods, userId: string) {
  return db.maybeOne(sql.type(TokenSubject)`
    SELECT id, organization_id AS "organizationId", type FROM users WHERE id = ${userId}`);
}

const Profile = z.strictObject({
  id: z.string(),
  organizationId: z.string(),
  type: principalType,
  email: z.string(),
  name: z.string(),
  emailVerified: z.boolean(),
  createdAt: z.string(),
});

export function findUserProfile(db: CommonQueryMethods, userId: string) {
  return db.maybeOne(sql.type(Profile)`
    SELECT id, organization_id AS "organizationId", type, email, name,
           email_verified_at IS NOT NULL AS "emailVerified", created_at AS "createdAt"
    FROM users WHERE id = ${userId}`);
}
