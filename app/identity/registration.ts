import type { CommonQueryMethods } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { findOrganization, insertOrganization, lockOrganization } from '../../sql/organizations.ts';
import { findRoleIdByName, grantRole, insertPrincipal } from '../../sql/principals.ts';
import type { AppDeps } from '../core/deps.ts';
import type { PrincipalType } from '../core/route.ts';
import { isBusinessRegistrationOpen } from '../organization/business-registration-flag.ts';
import { organizationNotFound } from '../organization/errors.ts';
import { hasActivePublicPlan } from '../plans/active-public-plan.ts';
import { noActivePublicPlan, planNotAvailable } from '../plans/errors.ts';
import { findOldestActivePublicPlan, findPlanOfOrganization } from '../../sql/plans.ts';
import { putBusinessOnPlan } from '../../sql/business-plans.ts';
import { userLimitReached } from '../subscriptions/errors.ts';
import { hasUserCapacity } from '../subscriptions/user-capacity.ts';
import { businessRegistrationDisabled, clientRegistrationDisabled, emailTaken } from './errors.ts';
import { hashPassword } from './passwords.ts';
import { sendEmailVerificationCode } from './verification-codes.ts';

export type Registered = { userId: string; organizationId: string; email: string };

/** The role a self-registered agency owner receives (created by migration 0100). */
export const AGENCY_OWNER_ROLE = 'agency-owner';
/** The role the owner of a registered business receives (created by migration 1201). */
export const BUSINESS_OWNER_ROLE = 'business-owner';

/** Inserts an unverified principal and sends its verification code; 409 when the email is taken. */
async function createUnverifiedPrincipal(
  deps: AppDeps,
  tx: CommonQueryMethods,
  input: { type: PrincipalType; organizationId: string; email: string; name: string; passwordHash: string },
): Promise<Registered> {
  const userId = uuidv7();
  const email = input.email.toLowerCase();
  const inserted = await insertPrincipal(tx, { id: userId, ...input, email, emailVerified: false });
  // Thrown inside the transaction: an organization created for this principal is rolled back too.
  if (!inserted) throw emailTaken();
  await sendEmailVerificationCode(deps, tx, { id: userId, email });
  return { userId, organizationId: input.organizationId, email };
}

/** A new agency and its owner (`POST /identity/auth/user/register`). */
export async function registerUser(
  deps: AppDeps,
  body: { email: string; password: string; name: string; organizationName: string },
): Promise<Registered> {
  const passwordHash = await hashPassword(body.password);
  return deps.db.transaction(async (tx) => {
    const organizationId = uuidv7();
    await insertOrganization(tx, { id: organizationId, name: body.organizationName, type: 'AGENCY', parentId: null });
    const registered = await createUnverifiedPrincipal(deps, tx, { type: 'user', organizationId, passwordHash, ...body });
    const roleId = await findRoleIdByName(tx, AGENCY_OWNER_ROLE);
    if (roleId) await grantRole(tx, registered.userId, roleId);
    return registered;
  });
}

/**
 * The organization a new client registers itself into: an existing AGENCY or BUSINESS (404
 * otherwise) whose `allowClientRegistration` is on (403 `IDENTITY.CLIENT_REGISTRATION_DISABLED`
 * otherwise: a client token opens verified sessions on its web channels, docs/channel.md).
 */
export async function openForClients(db: CommonQueryMethods, organizationId: string | undefined) {
  const organization = organizationId ? await findOrganization(db, organizationId) : null;
  if (!organization || organization.type === 'PLATFORM') throw organizationNotFound();
  if (!organization.allowClientRegistration) throw clientRegistrationDisabled();
  return organization;
}

/** A client (end customer) of an existing agency or business (`POST /identity/auth/client/register`). */
export async function registerClient(
  deps: AppDeps,
  body: { email: string; password: string; name: string; organizationId: string },
): Promise<Registered> {
  const passwordHash = await hashPassword(body.password);
  return deps.db.transaction(async (tx) => {
    await openForClients(tx, body.organizationId);
    return createUnverifiedPrincipal(deps, tx, { type: 'client', passwordHash, ...body });
  });
}

/**
 * The plan a self-registering business goes on: the one it names when that is an active public
 * plan of the agency (any other is 409 `PLANS.PLAN_NOT_AVAILABLE`), else the agency's oldest
 * active public plan (there is one: the gate before checked it under the same lock).
 */
async function planToRegisterOn(tx: CommonQueryMethods, agencyId: string, planId: string | undefined) {
  const plan = planId === undefined ? await findOldestActivePublicPlan(tx, agencyId) : await findPlanOfOrganization(tx, agencyId, planId);
  if (!plan || !plan.isActive || !plan.isPublic) throw planId === undefined ? noActivePublicPlan() : planNotAvailable();
  return plan;
}

/**
 * A business under an agency and its owner (docs/interface.md §6). The gates run fail-fast in this
 * order, each from its own area: the flag, an active public plan, user capacity, the plan named
 * (docs/billing.md); a taken email is checked after them. The business starts on that plan. The agency row is locked first, so the gates read a state
 * that Guard 1, Guard 2 and concurrent registrations cannot change before this commits.
 */
export async function registerBusiness(
  deps: AppDeps,
  body: { email: string; password: string; name: string; businessName: string; agencyId: string; planId?: string },
): Promise<Registered> {
  const passwordHash = await hashPassword(body.password);
  return deps.db.transaction(async (tx) => {
    // The body's `agencyId` (the interface's name) is the organization the business registers under.
    const parentId = body.agencyId;
    await lockOrganization(tx, parentId);
    if (!(await isBusinessRegistrationOpen(tx, parentId))) throw businessRegistrationDisabled();
    if (!(await hasActivePublicPlan(tx, parentId))) throw noActivePublicPlan();
    if (!(await hasUserCapacity(tx, parentId))) throw userLimitReached();
    const plan = await planToRegisterOn(tx, parentId, body.planId);
    const organizationId = uuidv7();
    await insertOrganization(tx, { id: organizationId, name: body.businessName, type: 'BUSINESS', parentId });
    await putBusinessOnPlan(tx, organizationId, plan.id, deps.clock());
    const registered = await createUnverifiedPrincipal(deps, tx, {
      type: 'user',
      organizationId,
      email: body.email,
      name: body.name,
      passwordHash,
    });
    const roleId = await findRoleIdByName(tx, BUSINESS_OWNER_ROLE);
    if (roleId) await grantRole(tx, registered.userId, roleId);
    return registered;
  });
}
