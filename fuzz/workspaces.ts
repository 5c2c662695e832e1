import fc from 'fast-check';
import { sql, type DatabasePool } from 'slonik';
import { DEMO_PASSWORD, ORGANIZATIONS } from '../seeds/demo-fixtures.ts';
import type { AttackCase } from './attack-cases.ts';
import { templateOf } from './document.ts';
import { exchange, type EngineContext, type Outcome } from './engine.ts';
import type { FuzzRequest } from './request.ts';
import type { SecretRegistry } from './secrets.ts';
import type { FuzzResponse } from './send.ts';
import { changedTables, snapshotAgency } from './tenancy.ts';
import { assemble, validParts, type Caller } from './valid.ts';

type Send = (request: FuzzRequest) => Promise<FuzzResponse>;

/** A client workspace of Demo Agency: the business's id and its owner as a caller. */
export type Business = { id: string; owner: Caller & { token: string } };

const json = (principal: string, target: string, body: unknown, token?: string): FuzzRequest => ({
  operation: '',
  kind: 'setup',
  principal,
  method: 'POST',
  target,
  headers: { 'content-type': 'application/json', ...(token ? { authorization: `Bearer ${token}` } : {}) },
  body: Buffer.from(JSON.stringify(body)),
});

/**
 * A business registered under Demo Agency (`register/business`, which gives its owner
 * `business-owner`), its owner's email marked verified, signed in, with one agent; the tokens join the secrets.
 */
export async function registerBusiness(
  send: Send,
  db: DatabasePool,
  secrets: SecretRegistry,
  name: string,
  email: string,
): Promise<Business> {
  const body = { email, password: DEMO_PASSWORD, name: `Owner of ${name}`, businessName: name, agencyId: ORGANIZATIONS.demoAgency.id };
  const registered = await send(json(email, '/api/identity/auth/user/register/business', body));
  if (registered.status !== 201) throw new Error(`registering ${name} answered ${registered.status}: ${registered.text}`);
  const { userId, organizationId } = JSON.parse(registered.text) as { userId: string; organizationId: string };
  await db.query(sql.unsafe`UPDATE users SET email_verified_at = now() WHERE id = ${userId}`);
  const login = await send(json(email, '/api/identity/auth/user/login', { email, password: DEMO_PASSWORD }));
  const tokens = JSON.parse(login.text) as { accessToken: string; refreshToken: string };
  secrets.add(tokens.accessToken, `access token of ${email}`);
  secrets.add(tokens.refreshToken, `refresh token of ${email}`);
  // One agent to start from, so that the workspace's scoped routes have something to reach.
  const agent = await send(json(email, '/api/ai/agents', { name: `${name} Helper` }, tokens.accessToken));
  if (agent.status !== 201) throw new Error(`an agent in ${name} answered ${agent.status}: ${agent.text}`);
  return { id: organizationId, owner: { name: email, token: tokens.accessToken } };
}

type Run = { context: EngineContext; record: (outcome: Outcome) => void; nextIndex: () => number };

/** One trespasser: a caller naming in `x-org-id` an organization it may not act in. */
export type Trespass = { who: string; caller: Caller; organizationId: string };

/** Who names what in the workspace trespass: every way out of one's own organization that acting in a workspace closes (docs/identity.md). */
export function workspaceTrespasses(business: Business, sibling: Business, agencyOwner: Caller, otherAgencyOwner: Caller): Trespass[] {
  return [
    { who: "Other Agency's owner naming Bakery", caller: otherAgencyOwner, organizationId: business.id },
    { who: 'Bakery naming its agency', caller: business.owner, organizationId: ORGANIZATIONS.demoAgency.id },
    { who: 'Bakery naming its sibling Florist', caller: business.owner, organizationId: sibling.id },
    { who: "Florist's owner naming Bakery", caller: sibling.owner, organizationId: business.id },
    { who: "Demo Agency's owner naming Other Agency", caller: agencyOwner, organizationId: ORGANIZATIONS.otherAgency.id },
  ];
}

/** Draws of a valid request per operation and trespasser, for one whose path stays the route's. */
const DRAWS = 10;
const FORBIDDEN = JSON.stringify({ statusCode: 403, message: 'Forbidden' });

/**
 * Workspace trespass: every operation that acts in an organization (the document's
 * `x-acting-organization`, not its path), called by each trespasser with a valid request (its own
 * ids) and `x-org-id` naming an organization it may not act in: another agency's business, a
 * business's own agency, a sibling business, another agency. Held when every answer is exactly the
 * plain 403 `{ statusCode: 403, message: "Forbidden" }` (the chain refuses before validation, the
 * scope and the handler) and none of `watched` (organizations nobody else touches meanwhile) changed.
 */
export async function workspaceTrespass(
  run: Run,
  trespasses: Trespass[],
  db: DatabasePool,
  watched: string[],
  seed: number,
): Promise<AttackCase> {
  const before = await Promise.all(watched.map((id) => snapshotAgency(db, id)));
  const leaks: string[] = [];
  let sent = 0;
  for (const operation of run.context.operations.filter((candidate) => candidate.acting)) {
    for (const { who, caller, organizationId } of trespasses) {
      const index = run.nextIndex();
      // A drawn path parameter may leave the route's path (an empty or slashed tool name): drawn again.
      const draws = fc.sample(validParts(operation, caller, run.context.pools), { seed: seed ^ index, numRuns: DRAWS });
      const requests = draws.map((parts) => assemble(operation, { ...caller, actingIn: organizationId }, parts, 'workspace trespass'));
      const request = requests.find((drawn) => templateOf(drawn.target, [operation.path]) !== undefined) ?? requests[0]!;
      const outcome = await exchange(run.context, request, index);
      run.record(outcome);
      sent++;
      const { status, text } = outcome.response;
      if (status !== 403 || text !== FORBIDDEN) leaks.push(`${operation.key} as ${who}: ${status} ${text.slice(0, 120)}`);
    }
  }
  const after = await Promise.all(watched.map((id) => snapshotAgency(db, id)));
  const changed = watched.flatMap((id, position) => changedTables(before[position]!, after[position]!).map((change) => `${id}: ${change}`));
  return {
    name: 'workspace trespass',
    held: leaks.length === 0 && changed.length === 0,
    detail:
      `${sent} requests naming in x-org-id an organization the caller may not act in (${trespasses.map((t) => t.who).join('; ')}), ` +
      `all the plain 403` +
      (leaks.length ? `; GOT PAST THE CHAIN: ${leaks.slice(0, 10).join('; ')}` : '') +
      (changed.length ? `; ROWS CHANGED: ${changed.join('; ')}` : ''),
  };
}

/**
 * Written by the agency's own plan move (`PUT /api/agency/businesses/{businessId}/plan`), a right
 * the agency has over its clients: a plan period, and the business's `plan_id` and `updated_at`
 * (snapshotted apart from the rest of its row, `snapshotAgency`).
 */
const AGENCY_MOVE_TABLES = ['business_plan_periods.', 'organizations.plan_id '];

/**
 * The sibling's changed tables less those its own agency changed legitimately: a plan period is
 * excused only when an answer shows a 200 plan move of that very business by one of `agencyStaff`.
 */
export function siblingChangesNotByItsAgency(changed: string[], outcomes: Outcome[], siblingId: string, agencyStaff: string[]): string[] {
  const moved = outcomes.some(
    (outcome) =>
      outcome.request.method === 'PUT' &&
      outcome.request.target.startsWith(`/api/agency/businesses/${siblingId}/plan`) &&
      outcome.response.status === 200 &&
      agencyStaff.includes(outcome.request.principal),
  );
  return moved ? changed.filter((line) => !AGENCY_MOVE_TABLES.some((table) => line.startsWith(table))) : changed;
}
