import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { findBuiltinTool } from '../../app/tools/builtins.ts';
import { MAX_DOCUMENTS_PER_AGENT, MAX_KNOWLEDGE_BYTES_PER_AGENT } from '../../app/knowledge/service.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { withTestApp, type TestContext } from '../helpers/app.ts';
import { as } from '../tools/support.ts';

const test = withTestApp(anyTest);

const documentsPath = (agentId: string) => `/api/ai/agents/${agentId}/documents`;

/** Fills the agent's knowledge base with `count` documents of `bytes` each, straight in the tables. */
const fill = (t: ExecutionContext<TestContext>, agentId: string, count: number, bytes: number) =>
  t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, created_at)
    SELECT gen_random_uuid(), ${ORGANIZATIONS.demoAgency.id}, ${agentId}, 'filler-' || n, 'text/plain', ${bytes}, 1, now()
    FROM generate_series(1, ${count}) AS n`);

test.serial('an agent holds at most 10,000 documents: the next upload is 409 AI.KNOWLEDGE_LIMIT_REACHED', async (t) => {
  await fill(t, AGENTS.support.id, MAX_DOCUMENTS_PER_AGENT, 1);
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.post(documentsPath(AGENTS.support.id), { name: 'one-more.txt', text: 'One more.' });
  t.is(response.status, 409);
  t.is(response.body.errorCode, 'AI.KNOWLEDGE_LIMIT_REACHED');
  t.regex(response.body.message.en, /at most 10000 documents per agent/);
  // The other agent of the organization is not affected.
  await owner.post(documentsPath(AGENTS.research.id), { name: 'fine.txt', text: 'Fine.' }).expect(201);
});

test.serial('an agent holds at most 500 MiB of documents', async (t) => {
  await fill(t, AGENTS.research.id, 1, MAX_KNOWLEDGE_BYTES_PER_AGENT - 10);
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.post(documentsPath(AGENTS.research.id), { name: 'big.txt', text: 'More than ten bytes of text.' });
  t.is(response.status, 409);
  t.regex(response.body.message.en, /at most 500 MiB of documents per agent/);
});

test.serial("list_documents answers the calling agent's documents only", async (t) => {
  await t.context.t.db.pool.query(sql.unsafe`DELETE FROM knowledge_documents WHERE agent_id = ${AGENTS.otherHelper.id}`);
  const other = await as(t.context.t, 'owner@other.test');
  await other.post(documentsPath(AGENTS.otherHelper.id), { name: 'theirs.md', text: '# Theirs\n\nText.' }).expect(201);
  const config = t.context.t.app.deps.config;
  const run = findBuiltinTool('list_documents')!.execute(config)!;
  const scope = { agencyId: ORGANIZATIONS.otherAgency.id, agentId: AGENTS.otherHelper.id, userId: USERS.otherOwner.id };
  const answer = (await run({ deps: t.context.t.app.deps, scope, input: {}, signal: new AbortController().signal })) as {
    documents: { name: string; contentType: string; passages: number }[];
  };
  t.deepEqual(
    answer.documents.map((document) => [document.name, document.contentType, document.passages]),
    [['theirs.md', 'text/markdown', 1]],
  );
});
