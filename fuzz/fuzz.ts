import { AGENTS, ORGANIZATIONS, USERS } from '../seeds/demo-fixtures.ts';
import { DEMO_PASSWORD } from '../seeds/demo-fixtures.ts';
import { analyticsCacheFill, analyticsRouteLimit, gotIn, ipv6Rotation, type AttackCase } from './attack-cases.ts';
import { hugeAnswer } from './chat-attacks.ts';
import { hostileDocumentUploads } from './document-attacks.ts';
import { dripProvider } from './drip-provider.ts';
import { endUsersOf, endUserTrespass, plantConversation } from './end-users.ts';
import { channelHoles } from './channel-holes.ts';
import { otlpSpanBomb, preAuthNestingBomb } from './attack-cases-37.ts';
import { methodsByPath, operationsOf, type Operation } from './document.ts';
import { drawRequest, exchange, runPhase, type EngineContext, type Outcome } from './engine.ts';
import { startHarness } from './harness.ts';
import { IdPools } from './id-pools.ts';
import { printReport, Tally } from './report.ts';
import { SecretRegistry, withoutIssuedTokens } from './secrets.ts';
import { makeSender } from './send.ts';
import { changedTables, scopedIdsOf, scopeTrespass, snapshotAgency } from './tenancy.ts';
import type { Caller } from './valid.ts';
import { registerBusiness, siblingChangesNotByItsAgency, workspaceTrespass, workspaceTrespasses } from './workspaces.ts';

export type FuzzOptions = {
  /** Seed of every random choice. */
  seed: number;
  /** Requests in the main run (the 429 phase adds a few dozen). */
  requests: number;
  /** Requests in flight at once. Default 8. */
  concurrency?: number;
  /** Share of hostile requests. Default 0.6. */
  hostileShare?: number;
  /**
   * Whether an attack case out of its time or memory bounds (health checks slower than their
   * bound, RSS growth, a refusal's extra latency) got in. Default true (`npm run fuzz`); the suite's
   * sample passes false and holds the outcomes only.
   */
  bounds?: boolean;
  write?: (line: string) => void;
};

export type FuzzResult = {
  ok: boolean;
  total: number;
  failures: number;
  problems: string[];
  unseen: number;
  seconds: number;
  tally: Tally;
  operations: Operation[];
  /** The review's attacks replayed (issue 22), each held or not. */
  attacks: AttackCase[];
};

const PRINCIPALS = ['owner@demo.test', 'member@demo.test', 'admin@platform.test', 'owner@other.test'];
/** The agency whose rows must not change while the others fuzz; its owner fuzzes first, alone. */
const PROTECTED = 'owner@other.test';
/** End users of a web channel of each agency; the protected agency's fuzzes with its owner. */
const END_USER = 'end-user@demo.test';
const PROTECTED_END_USER = 'end-user@other.test';
/** Client workspaces of Demo Agency: one fuzzed by its owner and by the agency's owner acting in it, a sibling nobody fuzzes. */
const BUSINESS_OWNER = 'owner@bakery.test';
const SIBLING_OWNER = 'owner@florist.test';
const AGENCY_IN_BUSINESS = 'owner@demo.test acting in Bakery';
/** A conversation of the protected end user: its client id is what the trespass names, its text is in no other answer. */
const PLANTED_CONVERSATION = 'planted-conversation';
const PLANTED_TEXT = 'fuzz-canary-of-another-organizations-end-user';

export async function runFuzz(options: FuzzOptions): Promise<FuzzResult> {
  const started = performance.now();
  const write = options.write ?? ((line: string) => process.stdout.write(`${line}\n`));
  const concurrency = options.concurrency ?? 8;
  const harness = await startHarness();
  const { send, close } = makeSender(harness.port, concurrency);
  const limitedSender = makeSender(harness.limitedPort, 1);
  const problems: string[] = [];
  const tally = new Tally();
  try {
    const document = JSON.parse(
      (await send({ operation: '', kind: 'setup', principal: 'anonymous', method: 'GET', target: '/api/openapi.json', headers: {} })).text,
    ) as unknown;
    const operations = operationsOf(document);
    const secrets = new SecretRegistry();
    secrets.add(DEMO_PASSWORD, 'demo password');
    const pools = new IdPools();
    pools.keepFromAnonymous(PROTECTED);
    const callers = new Map<string, Caller>([['anonymous', { name: 'anonymous' }]]);
    for (const email of PRINCIPALS) {
      const login = await send({
        operation: '',
        kind: 'setup',
        principal: email,
        method: 'POST',
        target: '/api/identity/auth/user/login',
        headers: { 'content-type': 'application/json' },
        body: Buffer.from(JSON.stringify({ email, password: DEMO_PASSWORD })),
      });
      const tokens = JSON.parse(login.text) as { accessToken: string; refreshToken: string };
      secrets.add(tokens.accessToken, `access token of ${email}`);
      secrets.add(tokens.refreshToken, `refresh token of ${email}`);
      callers.set(email, { name: email, token: tokens.accessToken });
    }
    // An anonymous end user of each agency's web channel, on the `/api/public/...` routes (401 on every other).
    const [endUser, protectedEndUser] = await endUsersOf(send, secrets, harness.deps, [
      { name: END_USER, owner: callers.get('owner@demo.test')!, agentId: AGENTS.support.id, organizationId: ORGANIZATIONS.demoAgency.id },
      {
        name: PROTECTED_END_USER,
        owner: callers.get(PROTECTED)!,
        agentId: AGENTS.otherHelper.id,
        organizationId: ORGANIZATIONS.otherAgency.id,
      },
    ]);
    for (const caller of [endUser, protectedEndUser]) callers.set(caller.name, caller);
    // A client workspace fuzzed as its owner and as the agency's staff acting in it (x-org-id); its sibling is only trespassed on.
    const business = await registerBusiness(send, harness.db.pool, secrets, 'Bakery', BUSINESS_OWNER);
    const sibling = await registerBusiness(send, harness.db.pool, secrets, 'Florist', SIBLING_OWNER);
    callers.set(BUSINESS_OWNER, business.owner);
    callers.set(AGENCY_IN_BUSINESS, { name: AGENCY_IN_BUSINESS, token: callers.get('owner@demo.test')!.token!, actingIn: business.id });
    // The demo channel's key is public: anonymous callers and its end user draw sessions on it (never on Other Agency's).
    for (const principal of ['anonymous', END_USER]) pools.remember(principal, 'publishableKey', endUser.publishableKey);
    const context: EngineContext = {
      seed: options.seed,
      operations,
      byKey: new Map(operations.map((operation) => [operation.key, operation])),
      allowOf: methodsByPath(operations),
      pools,
      secrets,
      send,
      hostileShare: options.hostileShare ?? 0.6,
    };
    // Ids to start from: every parameterless GET, as every caller.
    for (const caller of callers.values()) {
      for (const operation of operations.filter(
        (op) => op.method === 'GET' && !op.path.includes('{') && !op.path.startsWith('/api/docs'),
      )) {
        const request = { ...drawRequest({ ...context, hostileShare: 0 }, operation, caller, -1), kind: 'setup' };
        await exchange(context, request, -1);
      }
    }
    const outcomes: Outcome[] = [];
    const step = Math.max(1, Math.floor(options.requests / 10));
    const record = (outcome: Outcome) => {
      tally.add(outcome);
      outcomes.push(outcome);
      if (tally.total % step === 0)
        process.stderr.write(`  ${tally.total} / ${options.requests} requests, ${tally.failures.length} failing\n`);
    };
    // Phase 1: the protected agency's owner and end user alone (a fifth of the requests).
    const protectedShare = Math.floor(options.requests / 5);
    const own = [callers.get(PROTECTED)!, protectedEndUser];
    await runPhase(
      context,
      0,
      protectedShare,
      concurrency,
      (index) => ({ operation: operations[index % operations.length]!, caller: own[Math.floor(index / operations.length) % own.length]! }),
      record,
    );
    await plantConversation(harness.db.pool, protectedEndUser, PLANTED_CONVERSATION, PLANTED_TEXT);
    secrets.add(PLANTED_TEXT, "the text of another organization's end user's conversation");
    const before = await snapshotAgency(harness.db.pool, ORGANIZATIONS.otherAgency.id);
    const siblingBefore = await snapshotAgency(harness.db.pool, sibling.id);
    // The demo end user names that conversation on every public route that takes one, before phase 2 can turn its channel off.
    let trespassIndex = options.requests * 2;
    const endUserRun = { context, record, nextIndex: () => trespassIndex++ };
    const endUserCase = await endUserTrespass(endUserRun, endUser, PLANTED_CONVERSATION, options.seed);
    // The end-user review's holes, on apps of their own over this database, before phase 2 fuzzes Demo Agency.
    const channelCases = await channelHoles(harness, callers.get('owner@demo.test')!.token!);
    // Phase 2: everyone else, anonymous included, round robin over operations and callers.
    const others = [...callers.values()].filter((caller) => caller.name !== PROTECTED && caller.name !== PROTECTED_END_USER);
    await runPhase(
      context,
      protectedShare,
      options.requests - protectedShare,
      concurrency,
      (index) => ({
        operation: operations[index % operations.length]!,
        caller: others[Math.floor(index / operations.length) % others.length]!,
      }),
      record,
    );
    // Phase 3: the documented 429s, on the same app with its rate limits on. First the analytics
    // route limit, whose 600 would otherwise be partly spent by the loop below.
    const limitedContext = { ...context, send: limitedSender.send, hostileShare: 0 };
    let limitedIndex = options.requests;
    const limitedRun = { context: limitedContext, record, nextIndex: () => limitedIndex++ };
    const openRun = { context, record, nextIndex: () => limitedIndex++ };
    // Every scoped route, as each caller of another agency, with Other Agency's ids in its scope
    // parameter (limits off): the owner first, who holds every grant and so reaches the scope.
    const trespassers = ['owner@demo.test', 'member@demo.test', 'admin@platform.test', BUSINESS_OWNER, AGENCY_IN_BUSINESS].map((name) =>
      callers.get(name)!,
    );
    const trespass = await scopeTrespass(
      openRun,
      trespassers,
      await scopedIdsOf(harness.db.pool, ORGANIZATIONS.otherAgency.id),
      options.seed,
    );
    // Every acting route with x-org-id naming an organization the caller may not act in (limits off).
    const trespasses = workspaceTrespasses(business, sibling, callers.get('owner@demo.test')!, callers.get(PROTECTED)!);
    const workspaceCase = await workspaceTrespass(
      openRun,
      trespasses,
      harness.db.pool,
      [sibling.id, ORGANIZATIONS.otherAgency.id],
      options.seed,
    );
    const attacks: AttackCase[] = [
      trespass,
      workspaceCase,
      endUserCase,
      ...channelCases,
      await analyticsRouteLimit(limitedRun, callers.get('owner@demo.test')!, concurrency),
    ];
    for (const operation of operations.filter((op) => op.responses.has(429))) {
      const caller = operation.secured ? callers.get('owner@demo.test')! : callers.get('anonymous')!;
      // Until the limit the route announces (`RateLimit-Policy: "name";q=<limit>;w=<s>`) is spent, and one more.
      let budget = 15;
      for (let attempt = 0; attempt <= budget; attempt++) {
        const index = limitedIndex++;
        const outcome = await exchange(limitedContext, drawRequest(limitedContext, operation, caller, index), index);
        record(outcome);
        if (outcome.response.status === 429) break;
        const announced = /;q=(\d+)/.exec(String(outcome.response.headers['ratelimit-policy'] ?? ''))?.[1];
        // A limit beyond 100 (the analytics routes' 600) is not spent here: the attack cases spend one.
        if (announced !== undefined && Number(announced) >= 100) break;
        if (announced !== undefined) budget = Number(announced) + 1;
      }
    }
    // Phase 4: the security review's attacks (issue 22): IPv6 rotation through the trusted proxy
    // header against the login limit, and distinct analytics queries against the cache's budget.
    attacks.push(...(await ipv6Rotation(limitedRun, options.seed)));
    const fill = Math.max(200, Math.min(2_000, Math.floor(options.requests / 10)));
    attacks.push(await analyticsCacheFill(openRun, harness.deps, callers.get('owner@demo.test')!, fill, concurrency));
    attacks.push(await hugeAnswer(harness, callers.get('owner@demo.test')!));
    attacks.push(await dripProvider(harness.deps));
    // Issue 37: an OTLP span bomb from a real key, and a pre-auth nesting bomb with a made-up one.
    attacks.push(await otlpSpanBomb(limitedRun, callers.get('owner@demo.test')!));
    attacks.push(await preAuthNestingBomb(limitedRun, 20));
    // Issue 47: documents that made the heading pattern backtrack, and a PDF decompression bomb.
    attacks.push(await hostileDocumentUploads(openRun, callers.get('owner@demo.test')!));
    const bounds = options.bounds ?? true;
    for (const attack of attacks) if (gotIn(attack, bounds)) problems.push(`attack got in: ${attack.name}: ${attack.detail}`);
    const after = await snapshotAgency(harness.db.pool, ORGANIZATIONS.otherAgency.id);
    const changed = changedTables(before, after);
    if (changed.length) problems.push(`rows of Other Agency changed while other principals fuzzed: ${changed.join(', ')}`);
    const demoAgencyStaff = Object.values(USERS)
      .filter((user) => user.organization === 'demoAgency')
      .map((user) => user.email);
    const siblingChanged = siblingChangesNotByItsAgency(
      changedTables(siblingBefore, await snapshotAgency(harness.db.pool, sibling.id)),
      outcomes,
      sibling.id,
      demoAgencyStaff,
    );
    if (siblingChanged.length) problems.push(`rows of the sibling business changed while others fuzzed: ${siblingChanged.join(', ')}`);
    // Secrets: in no answer but the one that issued them, and nowhere in the log.
    const seen = new Set<string>();
    for (const outcome of outcomes) {
      if (seen.has(outcome.response.text)) continue;
      seen.add(outcome.response.text);
      const found = secrets.foundIn(withoutIssuedTokens(outcome.response.text));
      if (found.length)
        problems.push(
          `answer #${outcome.index} (${outcome.request.method} ${outcome.request.target.slice(0, 80)}) carried: ${found.join(', ')}`,
        );
    }
    const logText = harness.logs.lines.join('\n');
    const inLog = secrets.foundIn(logText);
    if (inLog.length) problems.push(`the server log holds: ${[...new Set(inLog)].join(', ')}`);
    if (/fuzz-raw-password|fuzz-cookie-secret|fuzz-raw-secret/.test(logText))
      problems.push('the server log holds bytes of a malformed request');
    const ready = await send({ operation: '', kind: 'check', principal: 'anonymous', method: 'GET', target: '/api/ready', headers: {} });
    if (ready.status !== 200) problems.push(`/api/ready answered ${ready.status} after the run`);
    const seconds = (performance.now() - started) / 1000;
    const unseen = tally.unseen(operations).reduce((sum, entry) => sum + entry.statuses.length, 0);
    printReport(
      tally,
      operations,
      [
        '',
        'attack cases:',
        ...attacks.map((attack) => `  ${gotIn(attack, bounds) ? 'GOT IN' : 'held'}  ${attack.name}: ${attack.detail}`),
        '',
        ...problems.map((problem) => `PROBLEM: ${problem}`),
        `seed ${options.seed}: ${tally.total} requests over ${operations.length} operations in ${seconds.toFixed(1)} s; ` +
          `${tally.failures.length} failing answers; ${problems.length} post-run problems; ${unseen} documented statuses unseen; ` +
          `${harness.logs.lines.length} log lines scanned; Other Agency rows ${changed.length ? 'CHANGED' : 'unchanged'}; ready ${ready.status}`,
      ],
      write,
    );
    return {
      ok: tally.failures.length === 0 && problems.length === 0,
      total: tally.total,
      failures: tally.failures.length,
      problems,
      unseen,
      seconds,
      tally,
      operations,
      attacks,
    };
  } finally {
    close();
    limitedSender.close();
    await harness.close();
  }
}
