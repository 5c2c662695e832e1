import fc from 'fast-check';
import { uuidv7 } from 'uuidv7';
import type { DatabasePool } from 'slonik';
import { saveMessageCreatingConversation } from '../sql/chat-conversations.ts';
import type { AppDeps } from '../app/core/deps.ts';
import type { AttackCase } from './attack-cases.ts';
import { exchange, type EngineContext, type Outcome } from './engine.ts';
import type { FuzzRequest } from './request.ts';
import type { SecretRegistry } from './secrets.ts';
import type { FuzzResponse } from './send.ts';
import { assemble, validParts, type Caller } from './valid.ts';

/** An end user of an agent's web channel, as the fuzzer calls the `/api/public/...` routes. */
export type EndUserCaller = Caller & { token: string; endUserId: string; organizationId: string; agentId: string; publishableKey: string };

type Send = (request: FuzzRequest) => Promise<FuzzResponse>;

const setup = (principal: string, method: string, target: string, headers: Record<string, string>, body?: unknown): FuzzRequest => ({
  operation: '',
  kind: 'setup',
  principal,
  method,
  target,
  headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
  ...(body === undefined ? {} : { body: Buffer.from(JSON.stringify(body)) }),
});

type Channel = { name: string; owner: Caller; agentId: string; organizationId: string };

/**
 * An anonymous end user of each channel's agent, the channel put by its organization's `owner`
 * and the session opened from the service's own origin (its share page's) as the widget does.
 * The session and visitor tokens join the secrets no other answer or log line may carry.
 */
export async function endUsersOf(
  send: Send,
  secrets: SecretRegistry,
  deps: Pick<AppDeps, 'config'>,
  channels: [Channel, Channel],
): Promise<[EndUserCaller, EndUserCaller]> {
  const origin = new URL(deps.config.publicBaseUrl).origin;
  const callers: EndUserCaller[] = [];
  for (const { name, owner, agentId, organizationId } of channels) {
    const staff = { authorization: `Bearer ${owner.token}` };
    const channel = { enabled: true, endUserMessagesPerDay: 10_000 };
    const put = await send(setup(owner.name, 'PUT', `/api/ai/agents/${agentId}/channel`, staff, channel));
    if (put.status !== 200) throw new Error(`putting the channel of ${agentId} answered ${put.status}: ${put.text}`);
    const { publishableKey } = JSON.parse(put.text) as { publishableKey: string };
    const opened = await send(setup(name, 'POST', '/api/public/sessions', { origin }, { publishableKey }));
    if (opened.status !== 201) throw new Error(`a session on ${agentId} answered ${opened.status}: ${opened.text}`);
    const session = JSON.parse(opened.text) as { sessionToken: string; visitorToken: string; endUser: { id: string } };
    secrets.add(session.sessionToken, `session token of ${name}`);
    secrets.add(session.visitorToken, `visitor token of ${name}`);
    callers.push({ name, token: session.sessionToken, endUserId: session.endUser.id, organizationId, agentId, publishableKey });
  }
  return [callers[0]!, callers[1]!];
}

/**
 * A conversation of `owner` (an end user of the protected organization) holding `canary`, whose
 * client id the trespass names: no answer to anyone else may carry the canary.
 */
export async function plantConversation(db: DatabasePool, owner: EndUserCaller, clientId: string, canary: string): Promise<void> {
  await saveMessageCreatingConversation(
    db,
    { organizationId: owner.organizationId, agentId: owner.agentId, endUserId: owner.endUserId },
    { id: uuidv7(), clientId, title: canary },
    { id: uuidv7(), role: 'user', parts: [{ type: 'text', text: canary }] },
    new Date(),
  );
}

/** What an end user may be answered about a conversation that is not theirs (or before it is looked up). */
const REFUSALS = new Set([400, 401, 403, 404, 413, 415, 429]);
const DRAWS = 5;

type Run = { context: EngineContext; record: (outcome: Outcome) => void; nextIndex: () => number };

/**
 * End-user trespass: every `/api/public/...` operation naming a conversation, called by an end
 * user of another organization with a valid request whose `conversationId` is the protected end
 * user's. Held when each answer is a refusal (the conversation's 404 or one given before it) and
 * each operation answered 404 `AI.CONVERSATION_NOT_FOUND` at least once (the lookup was reached).
 * The canary's absence from every answer is the run's secrets check.
 */
export async function endUserTrespass(run: Run, trespasser: EndUserCaller, clientId: string, seed: number): Promise<AttackCase> {
  const operations = run.context.operations.filter(
    (operation) => operation.path.startsWith('/api/public/') && operation.path.includes('{conversationId}'),
  );
  const leaks: string[] = [];
  const unreached: string[] = [];
  let sent = 0;
  for (const operation of operations) {
    let reached = false;
    for (let draw = 0; draw < DRAWS && !reached; draw++) {
      const index = run.nextIndex();
      const [parts] = fc.sample(validParts(operation, trespasser, run.context.pools), { seed: seed ^ index, numRuns: 1 });
      const request = assemble(
        operation,
        trespasser,
        { ...parts!, params: { ...parts!.params, conversationId: clientId } },
        'end-user trespass',
      );
      const outcome = await exchange(run.context, request, index);
      run.record(outcome);
      sent++;
      const { status, text } = outcome.response;
      if (status === 404 && text.includes('"AI.CONVERSATION_NOT_FOUND"')) reached = true;
      else if (!REFUSALS.has(status)) leaks.push(`${operation.key}: ${status} ${text.slice(0, 120)}`);
    }
    if (!reached) unreached.push(operation.key);
  }
  return {
    name: 'end-user trespass',
    held: operations.length > 0 && leaks.length === 0 && unreached.length === 0,
    detail:
      `${sent} requests of ${trespasser.name} naming another organization's end user's conversation on ${operations.length} public operations` +
      (leaks.length ? `; LEAKED: ${leaks.join('; ')}` : '') +
      (unreached.length ? `; the conversation lookup was never reached on: ${unreached.join(', ')}` : ''),
  };
}
