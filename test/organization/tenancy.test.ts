import anyTest from 'ava';
import { sql } from 'slonik';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { changedTables, snapshotAgency } from '../../fuzz/tenancy.ts';
import { testConfig, withTestApp } from '../helpers/app.ts';
import { type As, type Walk, WALKS } from './tenancy-requests.ts';
import { caller, workspace, type Workspace } from './workspaces.ts';

// Development: the demo model answers the turns (no provider), and loopback MCP addresses are allowed.
const test = withTestApp(anyTest, { app: { config: testConfig({ nodeEnv: 'development' }) } });

const FORBIDDEN = { statusCode: 403, message: 'Forbidden' };

type Operation = {
  key: string;
  method: string;
  path: string;
  responses: Record<string, unknown>;
  grants: string[];
  scope?: { parameter: string; errorCode: string };
};
type Answer = { status: number; body: unknown; text: string };

/** The operations of the served document that act in an organization, with the grants their policy names (any one suffices). */
async function actingOperations(http: ReturnType<typeof caller>): Promise<Operation[]> {
  const document = (await http.get('/api/openapi.json')).body as {
    paths: Record<
      string,
      Record<
        string,
        { description?: string; responses: Record<string, unknown>; 'x-acting-organization'?: boolean; 'x-scope'?: Operation['scope'] }
      >
    >;
  };
  return Object.entries(document.paths).flatMap(([path, methods]) =>
    Object.entries(methods)
      .filter(([, operation]) => operation['x-acting-organization'])
      .map(([method, operation]) => {
        const policy = /Policy: (.*)\./.exec(operation.description ?? '')?.[1] ?? '';
        const grants = [...policy.matchAll(/`(\w+)` on `([\w.]+)`/g)].map(([, action, subject]) => `${subject} ${action}`);
        return {
          key: `${method.toUpperCase()} ${path}`,
          method,
          path,
          responses: operation.responses,
          grants,
          scope: operation['x-scope'],
        };
      }),
  );
}

/** Sends `walk`'s request for `as` to `operation`, as `token` acting in `organizationId` (none: the token's own). */
async function send(
  http: ReturnType<typeof caller>,
  operation: Operation,
  walk: Walk,
  w: Workspace,
  as: As,
  params: Record<string, string> = {},
): Promise<Answer> {
  const request = walk.request(w, as);
  const allParams = { ...request.params, ...params };
  const path = operation.path.replace(/\{(\w+)\}/g, (_match, name: string) => encodeURIComponent(allParams[name] ?? 'missing'));
  const target = request.query ? `${path}?${request.query}` : path;
  const method = operation.method as 'get' | 'post' | 'put' | 'patch' | 'delete';
  const answer = method === 'get' || method === 'delete' ? await http[method](target) : await http[method](target, request.body ?? {});
  return { status: answer.status, body: answer.body, text: answer.text ?? '' };
}

const successOf = (operation: Operation, walk: Walk) =>
  walk.status ??
  Math.min(
    ...Object.keys(operation.responses)
      .map(Number)
      .filter((status) => status >= 200 && status < 300),
  );

/** Runs `work` over `items`, at most `limit` at once. */
async function inParallel<T>(items: T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  const queue = [...items];
  await Promise.all(
    Array.from({ length: limit }, async () => {
      for (let item = queue.shift(); item !== undefined; item = queue.shift()) await work(item);
    }),
  );
}

test('every route acting in an organization answers five callers as documented, and no answer carries another organization', async (t) => {
  t.timeout(180_000);
  const agencyToken = await t.context.t.login(USERS.owner.email);
  const otherToken = await t.context.t.login(USERS.otherOwner.email);
  const started = performance.now();
  const [bakery, florist] = await Promise.all([workspace(t, 'Bakery', agencyToken), workspace(t, 'Florist', agencyToken)]);
  const built = performance.now();
  const db = t.context.t.db.pool;
  const memberGrants = new Set(
    await db.anyFirst(sql.unsafe`
      SELECT p.subject || ' ' || p.action FROM role_permissions p JOIN roles r ON r.id = p.role_id WHERE r.name = 'business-member'`),
  );
  const operations = await actingOperations(caller(t, agencyToken));
  t.deepEqual(
    operations.map((operation) => operation.key).filter((key) => !WALKS[key]),
    [],
    'every acting operation has a request to walk',
  );
  t.deepEqual(
    Object.keys(WALKS).filter((key) => !operations.some((operation) => operation.key === key)),
    [],
    'no request for a route that is gone',
  );

  // What the walk's answers may not carry: Florist's data, Demo Agency's own agents, Other Agency's.
  const foreign = [...florist.markers, ORGANIZATIONS.otherAgency.id, ...Object.values(AGENTS).flatMap((agent) => [agent.id, agent.name])];
  const untouched = [florist.id, ORGANIZATIONS.otherAgency.id];
  const before = await Promise.all(untouched.map((id) => snapshotAgency(db, id)));

  const refusals: Array<[string, ReturnType<typeof caller>]> = [
    ["another agency's staff naming the business", caller(t, otherToken, bakery.id)],
    ['the business naming its agency', caller(t, bakery.ownerToken, ORGANIZATIONS.demoAgency.id)],
    ['the business naming a sibling business', caller(t, bakery.ownerToken, florist.id)],
  ];
  const agencyInBusiness = caller(t, agencyToken, bakery.id);
  const member = caller(t, bakery.memberToken);
  const answered = new Map<string, number>();

  const walk = async (operation: Operation) => {
    const spec = WALKS[operation.key]!;
    const success = successOf(operation, spec);
    const memberMay = operation.grants.length === 0 || operation.grants.some((grant) => memberGrants.has(grant));
    const check = (who: string, answer: Answer, status: number) => {
      t.is(answer.status, status, `${operation.key} as ${who}: ${answer.text.slice(0, 300)}`);
      for (const marker of foreign) t.false(answer.text.includes(marker), `${operation.key} as ${who} carried ${marker}`);
      answered.set(`${status}`, (answered.get(`${status}`) ?? 0) + 1);
    };
    for (const [who, http] of refusals) {
      const answer = await send(http, operation, spec, bakery, 'agency');
      check(who, answer, 403);
      t.deepEqual(answer.body, FORBIDDEN, `${operation.key} as ${who}`);
    }
    if (operation.scope) {
      // A resource of another organization in the path: the scope's 404, in the business and from it.
      const probes: Array<[string, ReturnType<typeof caller>, string]> = [
        ["the agency's staff in the business naming the agency's own agent", agencyInBusiness, AGENTS.support.id],
        ["the business owner naming its sibling's agent", caller(t, bakery.ownerToken), florist.agentId],
      ];
      for (const [who, http, agentId] of probes) {
        const answer = await send(http, operation, spec, bakery, 'agency', { [operation.scope.parameter]: agentId });
        check(who, answer, 404);
        t.is((answer.body as { errorCode?: string }).errorCode, operation.scope.errorCode);
      }
    }
    check('a business member', await send(member, operation, spec, bakery, 'member'), memberMay ? success : 403);
    check("the agency's staff acting in the business", await send(agencyInBusiness, operation, spec, bakery, 'agency'), success);
  };
  await inParallel(
    operations.filter((operation) => WALKS[operation.key]?.wave !== 2),
    6,
    walk,
  );
  await inParallel(
    operations.filter((operation) => WALKS[operation.key]?.wave === 2),
    6,
    walk,
  );

  const after = await Promise.all(untouched.map((id) => snapshotAgency(db, id)));
  untouched.forEach((id, index) => t.deepEqual(changedTables(before[index]!, after[index]!), [], `rows of ${id} changed`));
  t.log(
    `${operations.length} operations walked; answers by status: ${JSON.stringify(Object.fromEntries(answered))}; ` +
      `workspaces built in ${Math.round(built - started)} ms, walked in ${Math.round(performance.now() - built)} ms`,
  );
});
