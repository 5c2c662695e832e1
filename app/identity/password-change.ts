import { findPasswordHash, updatePasswordHash } from '../../sql/principals.ts';
import { revokeRefreshTokensOfUser } from '../../sql/refresh-tokens.ts';
import type { AppDeps } from '../core/deps.ts';
import { ValidationError } from '../core/errors.ts';
import type { AccessClaims } from '../core/route.ts';
import { wrongCurrentPassword } from './errors.ts';
import { hashPassword, verifyPassword } from './passwords.ts';

/**
 * Replaces the caller's password after checking the current one, and revokes every refresh
 * token of the principal, so other sessions end when their access token (15 minutes) expires.
 */
export async function changePassword(
  deps: AppDeps,
  auth: AccessClaims,
  body: { currentPassword: string; newPassword: string },
): Promise<void> {
  if (body.currentPassword === body.newPassword) {
    throw new ValidationError([{ path: ['newPassword'], message: 'must differ from the current password' }]);
  }
  const hash = await findPasswordHash(deps.db, auth.sub);
  if (!(await verifyPassword(hash, body.currentPassword))) throw wrongCurrentPassword();
  const newHash = await hashPassword(body.newPassword);
  await deps.db.transaction(async (tx) => {
    await updatePasswordHash(tx, auth.sub, newHash);
    await revokeRefreshTokensOfUser(tx, auth.sub);
  });
}
