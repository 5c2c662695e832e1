import anyTest from 'ava';
import { sql } from 'slonik';
import { uuidv7 } from 'uuidv7';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { listAgentServerConnections } from '../../sql/agent-mcp-server-connections.ts';
import { findConversationHistory, saveMessage, saveMessageCreatingConversation } from '../../sql/chat-conversations.ts';
import { findTurnReads } from '../../sql/chat-turn-reads.ts';
import { claimTurn, findBlockingTurn } from '../../sql/chat-turns.ts';
import { findProviderKey, upsertProviderKey } from '../../sql/provider-keys.ts';
import { listOfferableToolsForUser } from '../../sql/tool-permissions.ts';
import { withTestApp } from '../helpers/app.ts';

// The turn's one read (sql/chat-turn-reads.ts) answers each domain's read in a JSON form: it must
// answer exactly what the row forms answer, sealed bytes and the tool cache's time text included.
const test = withTestApp(anyTest);
const organizationId = ORGANIZATIONS.demoAgency.id;
const agentId = AGENTS.support.id;
const staff = { organizationId, agentId, userId: USERS.owner.id };

test.serial("a turn's one read answers the key, offered tools, MCP servers and history as their own reads do", async (t) => {
  const db = t.context.t.db.pool;
  const now = new Date('2026-12-02T08:00:00.123Z');
  await upsertProviderKey(db, {
    organizationId,
    sealed: { keyId: 'key-1', ciphertext: Buffer.from([0, 1, 2, 254, 255, 10, 13]) },
    baseUrl: 'https://models.example.test/v1',
    keyLastFour: 'abcd',
    now,
  });
  await db.query(sql.unsafe`DELETE FROM agent_tool_permissions WHERE agent_id = ${agentId}`);
  await db.query(sql.unsafe`
    INSERT INTO agent_tool_permissions (agent_id, tool_name, provider_key, permission_status, position)
    VALUES (${agentId}, 'send_email', 'email', 'needs_approval', 0), (${agentId}, 'create_event', 'calendar', 'blocked', 1),
           (${agentId}, 'web_search', 'web', 'always_allow', 2)`);
  await db.query(
    sql.unsafe`INSERT INTO tool_overrides (user_id, agent_id, tool_name) VALUES (${USERS.owner.id}, ${agentId}, 'send_email')`,
  );
  for (const credentials of [Buffer.from('sealed "credentials"\n\u0000', 'utf8'), null])
    await db.query(sql.unsafe`
      INSERT INTO agent_mcp_servers (id, organization_id, agent_id, name, url, transport_type, auth_type, credentials, credentials_key_id, updated_at)
      VALUES (${uuidv7()}, ${organizationId}, ${agentId}, 'Server', 'https://mcp.example.test/mcp', 'http',
              ${credentials ? 'static_headers' : 'none'}, ${credentials ? sql.binary(credentials) : null}, ${credentials ? 'key-1' : null},
              '2026-12-02T08:00:00.123456Z')`);
  const conversation = { id: uuidv7(), clientId: 'reads', title: 'Reads' };
  const first = { id: uuidv7(), role: 'user' as const, parts: [{ type: 'text', text: 'héllo "quoted" \\ line\nbreak' }] };
  await saveMessageCreatingConversation(db, staff, conversation, first, now);
  await saveMessage(db, conversation.id, { id: uuidv7(), role: 'assistant', parts: [{ type: 'text', text: 'Hi.' }] }, now);
  const window = { clientId: 'reads', maxBytes: 100_000, messageId: first.id };

  const reads = await findTurnReads(db, staff, { history: window, claim: null });

  t.deepEqual(reads.key, await findProviderKey(db, organizationId));
  t.true(Buffer.isBuffer(reads.key?.ciphertext));
  t.deepEqual(reads.tools, [...(await listOfferableToolsForUser(db, agentId, USERS.owner.id))]);
  t.deepEqual(
    reads.tools.map((tool) => [tool.toolName, tool.hasOverride]),
    [
      ['send_email', true],
      ['web_search', false],
    ],
  );
  const byId = <T extends { id: string }>(rows: readonly T[]) => [...rows].sort((a, b) => a.id.localeCompare(b.id));
  t.deepEqual(byId(reads.servers), byId(await listAgentServerConnections(db, { organizationId, agentId })));
  t.is(reads.servers.length, 2);
  t.deepEqual(reads.history, await findConversationHistory(db, staff, 'reads', window));
  t.like(reads.history, { id: conversation.id, messageCount: 2, hasMessage: true });
  t.is(reads.claimed, null);

  // An end user's turn: no overrides apply; no history asked for.
  const endUser = await findTurnReads(db, { organizationId, agentId, endUserId: uuidv7() }, { history: null, claim: null });
  t.deepEqual(endUser.tools, [...(await listOfferableToolsForUser(db, agentId, null))]);
  t.is(endUser.history, null);
  // Nothing stored: no key, no tools, no servers, no conversation.
  const other = await findTurnReads(
    db,
    { organizationId: ORGANIZATIONS.otherAgency.id, agentId: AGENTS.otherHelper.id, userId: USERS.owner.id },
    { history: window, claim: null },
  );
  t.deepEqual({ ...other, servers: [...other.servers] }, { key: null, tools: [], servers: [], history: null, claimed: null });
});

test.serial("a turn's claim written with its reads lets one turn in per conversation, as claimTurn does", async (t) => {
  const db = t.context.t.db.pool;
  const claim = (id: string, clientMessageId: string) => ({
    id,
    clientConversationId: 'claimed',
    clientMessageId,
    now: new Date(),
    leaseMs: 30_000,
  });
  const first = uuidv7();
  t.true((await findTurnReads(db, staff, { history: null, claim: claim(first, 'm-1') })).claimed);
  // Another message while it runs: not claimed, and the conversation's running turn is still the first.
  t.false((await findTurnReads(db, staff, { history: null, claim: claim(uuidv7(), 'm-2') })).claimed);
  t.false(await claimTurn(db, staff, claim(uuidv7(), 'm-3')));
  t.like(await findBlockingTurn(db, staff, 'claimed', 'm-2'), { id: first, running: true, lost: false });
});
