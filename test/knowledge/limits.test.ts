import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import type { Config } from '../../app/config.ts';
import { findBuiltinTool } from '../../app/tools/builtins.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig, withTestApp, type TestContext } from '../helpers/app.ts';
import request from 'supertest';
import { as } from '../tools/support.ts';
import { startEmbeddingPeer, type EmbeddingPeer } from './embedding-peer.ts';

const test = withTestApp(anyTest);

type T = ExecutionContext<TestContext>;
const documentsPath = (agentId: string) => `/api/ai/agents/${agentId}/documents`;

/** Adds `count` documents of `chunks` chunks and `textBytes` bytes of text each to the agent, straight in the table. */
const fill = (t: T, agentId: string, count: number, sizes: { bytes?: number; chunks?: number; textBytes?: number } = {}) =>
  t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO knowledge_documents (id, organization_id, agent_id, name, content_type, bytes, chunk_count, text_bytes, created_at)
    SELECT gen_random_uuid(), (SELECT organization_id FROM agents WHERE id = ${agentId}), ${agentId}, 'filler-' || n, 'text/plain',
           ${sizes.bytes ?? 1}, ${sizes.chunks ?? 1}, ${sizes.textBytes ?? 1}, now()
    FROM generate_series(1, ${count}) AS n`);

const empty = (t: T) => t.context.t.db.pool.query(sql.unsafe`DELETE FROM knowledge_documents`);

/** The platform embeds only with a priced model: the scripted one gets a price. */
const priceEmbeddingModel = (t: T) =>
  t.context.t.db.pool.query(sql.unsafe`
    INSERT INTO model_pricing (model_id, input_usd_per_mtok, output_usd_per_mtok, cache_read_usd_per_mtok)
    VALUES ('test/concepts', 0.02, 0, 0) ON CONFLICT (model_id) DO NOTHING`);

/**
 * An app whose uploads embed through a scripted provider that records every request, with these
 * knowledge limits (the rest as declared); `upload` posts JSON `{ name, text }` to it as the owner.
 */
async function embeddingApp(t: T, limits: Partial<Config['knowledge']>) {
  await priceEmbeddingModel(t);
  const peer: EmbeddingPeer = await startEmbeddingPeer();
  t.teardown(() => peer.close());
  const base = testConfig();
  const config = {
    ...base,
    ai: { ...base.ai, gatewayUrl: peer.url, gatewayApiKey: 'sk-platform-test' },
    tools: { ...base.tools, embeddingModel: 'test/concepts' },
    knowledge: { ...base.knowledge, ...limits },
  };
  return { peer, upload: uploader(t, config, 'owner@demo.test') };
}

/** Uploads JSON `{ name, text }` as `email` to an app over the file's database with `config`. */
function uploader(t: T, config: Config, email: string) {
  const server = t.context.t.rebuild({ config }).callback();
  const login = as(t.context.t, email);
  return async (agentId: string, name: string, text: string) => {
    const { token } = await login;
    return request(server).post(documentsPath(agentId)).set('authorization', `Bearer ${token}`).send({ name, text });
  };
}

/** Markdown of `sections` headed sections of about 1,000 characters: one chunk each (994 bytes stored). */
const text = (sections: number) =>
  Array.from({ length: sections }, (_, i) => `# Section ${i}\n\n${'Refund delivery payment password. '.repeat(29)}`).join('\n\n');

test.serial('an agent holds at most 10,000 documents: the next upload is 409 AI.KNOWLEDGE_LIMIT_REACHED', async (t) => {
  await empty(t);
  await fill(t, AGENTS.support.id, 10_000);
  const owner = await as(t.context.t, 'owner@demo.test');
  const response = await owner.post(documentsPath(AGENTS.support.id), { name: 'one-more.txt', text: 'One more.' });
  t.is(response.status, 409);
  t.is(response.body.errorCode, 'AI.KNOWLEDGE_LIMIT_REACHED');
  t.regex(response.body.message.en, /at most 10000 documents per agent/);
  // The other agent of the organization is not affected.
  await owner.post(documentsPath(AGENTS.research.id), { name: 'fine.txt', text: 'Fine.' }).expect(201);
});

test.serial('an agent at its passage limit gets 409 naming the limit, and nothing is sent to the embedding provider', async (t) => {
  await empty(t);
  await fill(t, AGENTS.support.id, 1, { chunks: 10 });
  const { peer, upload } = await embeddingApp(t, { maxChunksPerAgent: 12 });
  const refused = await upload(AGENTS.support.id, 'three.md', text(3));
  t.is(refused.status, 409);
  t.is(refused.body.errorCode, 'AI.KNOWLEDGE_LIMIT_REACHED');
  t.is(refused.body.message.en, 'The knowledge base is full: at most 12 passages per agent.');
  t.is(peer.requests.length, 0);
  // Two passages still fit, and they are embedded.
  const added = await upload(AGENTS.support.id, 'two.md', text(2));
  t.is(added.status, 201);
  t.is(added.body.chunkCount, 2);
  t.deepEqual(
    peer.requests.map((request) => request.input.length),
    [2],
  );
});

test.serial('the text limit counts the extracted text as stored, not the uploaded bytes', async (t) => {
  await empty(t);
  // A document whose upload weighed 400 MiB but whose text is small (a PDF of scanned pages) takes no text room.
  await fill(t, AGENTS.support.id, 1, { bytes: 400 * 1024 * 1024, textBytes: 1_000 });
  const { peer, upload } = await embeddingApp(t, { maxTextBytesPerAgent: 4_000 });
  t.is((await upload(AGENTS.support.id, 'small.md', text(2))).status, 201);
  const stored = await t.context.t.db.pool.one(sql.type(z.strictObject({ textBytes: z.number(), chunkBytes: z.number() }))`
    SELECT d.text_bytes::int AS "textBytes", sum(octet_length(c.heading) + octet_length(c.body))::int AS "chunkBytes"
    FROM knowledge_documents d JOIN knowledge_chunks c ON c.document_id = d.id WHERE d.name = 'small.md' GROUP BY d.id`);
  t.is(stored.textBytes, stored.chunkBytes);
  t.true(stored.textBytes > 1_900);
  const requests = peer.requests.length;
  // 1,000 + about 2,000 stored: one more paragraph fits, two more do not.
  const refused = await upload(AGENTS.support.id, 'more.md', text(2));
  t.is(refused.status, 409);
  t.is(refused.body.message.en, 'The knowledge base is full: at most 4000 bytes of extracted text per agent.');
  t.is(peer.requests.length, requests);
});

test.serial("an organization's limits count every agent's documents; another organization is not affected", async (t) => {
  await empty(t);
  const { peer, upload } = await embeddingApp(t, { maxChunksPerOrganization: 5 });
  t.is((await upload(AGENTS.support.id, 'support.md', text(3))).status, 201);
  const embedded = peer.requests.length;
  const refused = await upload(AGENTS.research.id, 'research.md', text(3));
  t.is(refused.status, 409);
  t.is(refused.body.message.en, 'The knowledge base is full: at most 5 passages per organization.');
  t.is(peer.requests.length, embedded);
  t.is((await upload(AGENTS.research.id, 'research.md', text(2))).status, 201);

  // The other organization's agent has room of its own.
  await fill(t, AGENTS.otherHelper.id, 1, { chunks: 4 });
  const base = testConfig();
  const other = uploader(t, { ...base, knowledge: { ...base.knowledge, maxChunksPerOrganization: 5 } }, 'owner@other.test');
  t.is((await other(AGENTS.otherHelper.id, 'theirs.txt', 'Theirs.')).status, 201);
});

test.serial("the organization's text limit counts every agent's extracted text", async (t) => {
  await empty(t);
  await fill(t, AGENTS.support.id, 1, { textBytes: 1024 * 1024 - 994 });
  const { peer, upload } = await embeddingApp(t, { maxTextBytesPerOrganization: 1024 * 1024 });
  t.is((await upload(AGENTS.research.id, 'fits.md', text(1))).status, 201);
  const embedded = peer.requests.length;
  const full = await upload(AGENTS.research.id, 'tiny.txt', 'Tiny.');
  t.is(full.status, 409);
  t.is(full.body.message.en, 'The knowledge base is full: at most 1 MiB of extracted text per organization.');
  t.is(peer.requests.length, embedded);
});

test.serial('concurrent uploads to two agents cannot pass the organization limit together', async (t) => {
  await empty(t);
  const { upload } = await embeddingApp(t, { maxChunksPerOrganization: 5 });
  const answers = await Promise.all([
    upload(AGENTS.support.id, 'a.md', text(3)),
    upload(AGENTS.research.id, 'b.md', text(3)),
    upload(AGENTS.support.id, 'c.md', text(3)),
  ]);
  t.deepEqual(answers.map((answer) => answer.status).sort(), [201, 409, 409]);
  const stored = await t.context.t.db.pool.oneFirst(sql.type(z.strictObject({ n: z.number() }))`
    SELECT coalesce(sum(chunk_count), 0)::int AS n FROM knowledge_documents WHERE organization_id = ${ORGANIZATIONS.demoAgency.id}`);
  t.is(stored, 3);
});

test.serial("list_documents answers the calling agent's documents only", async (t) => {
  await empty(t);
  const other = await as(t.context.t, 'owner@other.test');
  await other.post(documentsPath(AGENTS.otherHelper.id), { name: 'theirs.md', text: '# Theirs\n\nText.' }).expect(201);
  const config = t.context.t.app.deps.config;
  const run = findBuiltinTool('list_documents')!.execute(config)!;
  const scope = { organizationId: ORGANIZATIONS.otherAgency.id, agentId: AGENTS.otherHelper.id, userId: USERS.otherOwner.id };
  const answer = (await run({ deps: t.context.t.app.deps, scope, input: {}, signal: new AbortController().signal })) as {
    documents: { name: string; contentType: string; passages: number }[];
  };
  t.deepEqual(
    answer.documents.map((document) => [document.name, document.contentType, document.passages]),
    [['theirs.md', 'text/markdown', 1]],
  );
});
