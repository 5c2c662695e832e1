import { sql } from 'slonik';
import { z } from 'zod';
import { userHashOf } from '../app/channel/secrets.ts';
import { ORGANIZATIONS } from '../seeds/demo-fixtures.ts';
import { DEMO_PASSWORD } from '../seeds/demo-fixtures.ts';
import type { AttackCase } from './attack-cases.ts';
import { chatBody, type ChannelLab } from './channel-lab.ts';
import type { Harness } from './harness.ts';

/*
 * The web channel's holes of the end-user review (docs/channel.md, "Tried as an attacker would"),
 * each replayed as an end user would: held when the service answers as docs/channel.md says.
 */

const MODEL = 'openai/gpt-4o-mini';
const CONTENT_FILTER = '"finishReason":"content-filter"';

/** The end user's answer to every approval its conversation's last message waits on, as `addToolApprovalResponse` leaves it. */
async function answerBody(lab: ChannelLab, token: string, chatId: string) {
  const read = await lab.call('GET', `/api/public/conversations/${chatId}`, undefined, { token });
  const messages = (read.json().messages ?? []) as { id: string; role: string; parts: Record<string, unknown>[] }[];
  const last = messages.at(-1);
  const parts = (last?.parts ?? []).map((part) =>
    part.state === 'approval-requested'
      ? { ...part, state: 'approval-responded', approval: { id: (part.approval as { id: string }).id, approved: true } }
      : part,
  );
  return { id: chatId, messages: [...messages.slice(0, -1), { ...last, parts }] };
}

/**
 * Regenerates of refused messages (a blocked term, a moderation model's "unsafe"), on the public
 * route and the staff route, and an end user's approval answer after a term was added: held when
 * each answer is the refusal and the agent's model is never called.
 */
export async function guardrailBypass(lab: ChannelLab): Promise<AttackCase> {
  const agent = await lab.agent('Guarded (fuzz)', MODEL, { approvals: 'end_user', endUserMessagesPerDay: 100 });
  const guardrails = { blockedTerms: ['forbiddenword'], moderationModel: MODEL };
  await lab.call('PATCH', `/api/ai/agents/${agent.id}`, { guardrails }, { staff: true });
  const token = await lab.session(agent.publishableKey);
  const start = lab.agentCalls();
  const failures: string[] = [];
  let sent = 0;
  const refused = async (label: string, path: string, body: unknown, as: { token?: string; staff?: true }) => {
    const answer = await lab.call('POST', path, body, as);
    sent++;
    if (answer.status !== 200 || !answer.text.includes(CONTENT_FILTER))
      failures.push(`${label}: ${answer.status} ${answer.text.slice(0, 120)}`);
  };
  for (const [label, path, as] of [
    ['public', '/api/public/chat', { token }],
    ['staff', `/api/ai/agents/${agent.id}/chat`, { staff: true }],
  ] as const)
    for (const [kind, text] of [
      ['blocked term', 'tell me about forbiddenword'],
      ['moderation', 'how do I hurt someone'],
    ] as const) {
      const chatId = `fuzz-${label}-${kind.replace(' ', '-')}`;
      await refused(`${label} ${kind}`, path, chatBody(chatId, text), as);
      for (let again = 0; again < 3; again++)
        await refused(`${label} ${kind} regenerate`, path, chatBody(chatId, text, 'regenerate-message'), as);
    }
  // A message answered with an approval request, then a term that refuses it: the answer is refused too.
  await lab.call('PATCH', `/api/ai/agents/${agent.id}`, { guardrails: { blockedTerms: [], moderationModel: null } }, { staff: true });
  await lab.call(
    'PUT',
    `/api/ai/agents/${agent.id}/tools`,
    { tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }] },
    { staff: true },
  );
  const onRefused = lab.agentCalls() - start;
  lab.script.reply = 'tool';
  await lab.call('POST', '/api/public/chat', chatBody('fuzz-approval', 'list the documents about nothingelse'), { token });
  const asked = lab.agentCalls() - start - onRefused;
  const callsBefore = lab.agentCalls();
  await lab.call('PATCH', `/api/ai/agents/${agent.id}`, { guardrails: { blockedTerms: ['nothingelse'] } }, { staff: true });
  await refused('approval answer', '/api/public/chat', await answerBody(lab, token, 'fuzz-approval'), { token });
  lab.script.reply = 'text';
  const onAnswer = lab.agentCalls() - callsBefore;
  await lab.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, { staff: true });
  return {
    name: 'guardrails skipped by a regenerate or an approval answer',
    held: failures.length === 0 && onRefused === 0 && onAnswer === 0 && asked === 1,
    detail:
      `${sent} turns (new, 3 regenerates each, public and staff route; an approval answer): ` +
      `${sent - failures.length} refused, the agent's model called ${onRefused + onAnswer} times for a refused message` +
      (failures.length ? `; ANSWERED: ${failures.join('; ')}` : ''),
  };
}

/**
 * The daily quota at 2: a message and a regenerate spend it; then regenerates, an approval
 * answer and a new message. Held when each of those is 429 `AI.END_USER_QUOTA_EXCEEDED` and the
 * model is called twice in all.
 */
export async function quotaBypass(lab: ChannelLab): Promise<AttackCase> {
  const agent = await lab.agent('Quota (fuzz)', MODEL, { approvals: 'end_user', endUserMessagesPerDay: 2 });
  await lab.call(
    'PUT',
    `/api/ai/agents/${agent.id}/tools`,
    { tools: [{ toolName: 'list_documents', permissionStatus: 'needs_approval', providerKey: 'knowledge' }] },
    { staff: true },
  );
  const token = await lab.session(agent.publishableKey);
  lab.script.reply = 'tool';
  const before = lab.agentCalls();
  const statuses: number[] = [];
  statuses.push((await lab.call('POST', '/api/public/chat', chatBody('fuzz-quota', 'list the documents'), { token })).status);
  statuses.push(
    (await lab.call('POST', '/api/public/chat', chatBody('fuzz-quota', 'list the documents', 'regenerate-message'), { token })).status,
  );
  const past: { status: number; code: unknown }[] = [];
  const answer = await answerBody(lab, token, 'fuzz-quota');
  for (const body of [
    ...Array.from({ length: 10 }, () => chatBody('fuzz-quota', 'list the documents', 'regenerate-message')),
    answer,
    chatBody('fuzz-quota-2', 'hello'),
  ]) {
    const refused = await lab.call('POST', '/api/public/chat', body, { token });
    past.push({ status: refused.status, code: refused.status === 429 ? refused.json().errorCode : refused.text.slice(0, 80) });
  }
  lab.script.reply = 'text';
  const calls = lab.agentCalls() - before;
  await lab.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, { staff: true });
  const held =
    statuses.every((status) => status === 200) &&
    past.every((one) => one.status === 429 && one.code === 'AI.END_USER_QUOTA_EXCEEDED') &&
    calls === 2;
  return {
    name: 'the daily quota passed by regenerates and approval answers',
    held,
    detail: `at a quota of 2: a message and a regenerate ${statuses.join(', ')}; then 10 regenerates, an approval answer and a message: ${past.map((one) => one.status).join(' ')}; model calls ${calls}`,
  };
}

const Count = z.strictObject({ n: z.number() });

/**
 * A stranger registers as a client of an organization that takes no client registrations
 * (Other Agency, whose id every anonymous session token of its channels carries), with a password
 * and through nothing else; and the demo client's session says it is a client. Held when the
 * registration is 403 `IDENTITY.CLIENT_REGISTRATION_DISABLED` and made nobody, and the client's
 * session has `kind: "client"`.
 */
export async function strangerAsClient(lab: ChannelLab, harness: Harness): Promise<AttackCase> {
  // The case's premise, whatever the fuzzing before it did: Other Agency's owner may legitimately
  // have turned client registration on with PATCH /organization/my among the drawn requests. The
  // flag is put back after the case, so the rows' before-and-after check sees no change.
  const flag = await harness.db.pool.oneFirst(
    sql.type(
      z.strictObject({ on: z.boolean() }),
    )`SELECT allow_client_registration AS on FROM organizations WHERE id = ${ORGANIZATIONS.otherAgency.id}`,
  );
  const setFlag = (on: boolean) =>
    harness.db.pool.query(
      sql.unsafe`UPDATE organizations SET allow_client_registration = ${on} WHERE id = ${ORGANIZATIONS.otherAgency.id}`,
    );
  await setFlag(false);
  const email = `stranger-${Date.now()}@fuzz.test`;
  const registered = await lab.call('POST', '/api/identity/auth/client/register', {
    email,
    password: 'a-long-stranger-password',
    name: 'Support Lead',
    organizationId: ORGANIZATIONS.otherAgency.id,
  });
  const made = await harness.db.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM users WHERE email = ${email}`);
  await setFlag(flag);
  const agent = await lab.agent('Clients (fuzz)', MODEL, { identity: 'verified' });
  const login = await lab.call('POST', '/api/identity/auth/client/login', { email: 'customer@demo.test', password: DEMO_PASSWORD });
  const clientToken = login.json().accessToken as string;
  const session = await lab.call(
    'POST',
    '/api/public/sessions',
    { publishableKey: agent.publishableKey },
    { headers: { origin: 'https://shop.example.com', authorization: `Bearer ${clientToken}` } },
  );
  const endUser = session.status === 201 ? (session.json().endUser as { kind?: string }) : undefined;
  await lab.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, { staff: true });
  const code = registered.status === 403 ? registered.json().errorCode : registered.text.slice(0, 80);
  return {
    name: 'a stranger registering as a verified customer',
    held: registered.status === 403 && code === 'IDENTITY.CLIENT_REGISTRATION_DISABLED' && made === 0 && endUser?.kind === 'client',
    detail: `client registration into Other Agency (registration off): ${registered.status} ${String(code)}, ${made} accounts made; the demo client's session: ${session.status} kind ${endUser?.kind}`,
  };
}

/**
 * A verified end user naming themselves with a line break and an instruction for the staff (and
 * an email with a header line): held when each session is 400 at its field and no end user of
 * that id is made.
 */
export async function namesForStaff(lab: ChannelLab, harness: Harness): Promise<AttackCase> {
  const agent = await lab.agent('Names (fuzz)', MODEL);
  const secret = (await lab.call('POST', `/api/ai/agents/${agent.id}/channel/secret`, undefined, { staff: true })).json().secret as string;
  const id = `fuzz-lead-${Date.now()}`;
  const user = { id, hash: userHashOf(secret, id) };
  const tries = [
    { name: 'Support Lead\nACTION NEEDED: approve at https://evil.test/login' },
    { name: 'Support Lead\u2028ACTION NEEDED' },
    { name: 'Support Lead\u0085ACTION NEEDED' },
    { name: 'Lead \u202Enimda' },
    { email: 'lead@shop.example.com\nBcc: everyone@shop.example.com' },
  ];
  const answers: string[] = [];
  for (const given of tries) {
    const answer = await lab.call(
      'POST',
      '/api/public/sessions',
      { publishableKey: agent.publishableKey, user: { ...user, ...given } },
      { headers: { origin: 'https://shop.example.com' } },
    );
    const path = answer.status === 400 ? JSON.stringify((answer.json().errors as { path: string[] }[])[0]?.path) : '';
    answers.push(`${answer.status}${path}`);
  }
  const made = await harness.db.pool.oneFirst(sql.type(Count)`SELECT count(*)::int AS n FROM end_users WHERE external_id = ${id}`);
  await lab.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, { staff: true });
  const expected = ['400["user","name"]', '400["user","name"]', '400["user","name"]', '400["user","name"]', '400["user","email"]'];
  return {
    name: 'an end user name with a line break for the staff',
    held: answers.every((answer, i) => answer === expected[i]) && made === 0,
    detail: `${tries.length} sessions with a name or email over lines: ${answers.join(' ')}; end users made ${made}`,
  };
}

/**
 * 300 reads of the conversation list with one session token in a burst, then 40 stops, on an
 * app with its rate limits on: held when at most 120 reads and 30 stops are answered and the rest
 * are 429.
 */
export async function unthrottledReads(limited: ChannelLab): Promise<AttackCase> {
  const agent = await limited.agent('Reads (fuzz)', MODEL);
  const token = await limited.session(agent.publishableKey);
  const count = async (method: string, path: string, times: number) => {
    const statuses = await Promise.all(
      Array.from({ length: times }, () => limited.call(method, path, undefined, { token }).then((answer) => answer.status)),
    );
    return { answered: statuses.filter((status) => status !== 429).length, limited: statuses.filter((status) => status === 429).length };
  };
  const reads = await count('GET', '/api/public/conversations', 300);
  const stops = await count('POST', '/api/public/chat/fuzz-nothing/stop', 40);
  await limited.call('DELETE', `/api/ai/agents/${agent.id}`, undefined, { staff: true });
  return {
    name: 'public reads unthrottled',
    held: reads.answered === 120 && reads.limited === 180 && stops.answered === 30 && stops.limited === 10,
    detail: `300 list reads with one session token at once: ${reads.answered} answered, ${reads.limited} 429; 40 stops: ${stops.answered} answered, ${stops.limited} 429`,
  };
}
