import anyTest from 'ava';
import { withTestApp } from '../helpers/app.ts';
import { searchKnowledge } from '../../app/knowledge/service.ts';
import { chunkText, CHUNK_OVERLAP_CHARS, CHUNK_TARGET_CHARS } from '../../app/knowledge/chunking.ts';
import { seedDemoKnowledge } from '../../seeds/demo-knowledge.ts';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { as } from '../tools/support.ts';

const test = withTestApp(anyTest);

const scope = { organizationId: ORGANIZATIONS.demoAgency.id, agentId: AGENTS.support.id, userId: USERS.owner.id };

let seeded: Promise<number> | undefined;
/** The help center, seeded once for the file (hooks of a file may run before the app exists). */
const seed = (t: { context: { t: { app: { deps: Parameters<typeof seedDemoKnowledge>[0] } } } }) =>
  (seeded ??= seedDemoKnowledge(t.context.t.app.deps));

test.beforeEach(async (t) => {
  await seed(t);
});

test.serial('seeding the help center adds its four documents', async (t) => {
  t.is(await seed(t), 4);
});

const QUESTIONS: [string, string, RegExp][] = [
  ['How long does it take to get my money back?', 'refunds-and-returns.md', /5 to 7 business days/],
  ['how do I reset my password', 'account-and-security.md', /Forgot password/],
  ['How long does delivery take outside the EU?', 'shipping.md', /7 to 10 business days elsewhere/],
  ['Which payment methods do you accept?', 'billing.html', /SEPA direct debit/],
  ['can I return an item I bought', 'refunds-and-returns.md', /prepaid return label/],
  ['where is my tracking number', 'shipping.md', /tracking number is in the shipping confirmation/],
  ['"two-factor authentication"', 'account-and-security.md', /authenticator app/],
];

for (const [question, document, passage] of QUESTIONS) {
  test(`the question "${question}" finds the passage that answers it first`, async (t) => {
    const [best] = await searchKnowledge(t.context.t.app.deps, scope, question, 3);
    t.is(best?.documentName, document);
    t.regex(best!.text, passage);
    t.true(best!.score > 0);
  });
}

test('a query of stop words or unknown words finds nothing, and passages carry their heading path', async (t) => {
  t.deepEqual(await searchKnowledge(t.context.t.app.deps, scope, 'the and of', 5), []);
  t.deepEqual(await searchKnowledge(t.context.t.app.deps, scope, 'xylophone quasar', 5), []);
  const [invoice] = await searchKnowledge(t.context.t.app.deps, scope, 'invoices', 1);
  t.is(invoice!.heading, 'Billing > Invoices');
});

test("another agent's search does not see the Support Assistant's documents", async (t) => {
  t.deepEqual(await searchKnowledge(t.context.t.app.deps, { ...scope, agentId: AGENTS.research.id }, 'refund', 5), []);
});

test('seeding again adds nothing and the documents are listed by the route', async (t) => {
  t.is(await seedDemoKnowledge(t.context.t.app.deps), 0);
  const owner = await as(t.context.t, 'owner@demo.test');
  const listed = await owner.get(`/api/ai/agents/${AGENTS.support.id}/documents`).expect(200);
  t.deepEqual(
    listed.body.documents.map((document: { name: string }) => document.name),
    ['refunds-and-returns.md', 'shipping.md', 'account-and-security.md', 'billing.html'],
  );
});

test('chunks stay under their heading, within the target size, and a long section continues with an overlap', (t) => {
  const sentence = 'Every sentence of this long section talks about warehouses and parcels. ';
  const text = `# Intro\n\nShort first section.\n\n# Long\n\n${sentence.repeat(20)}\n\n${sentence.repeat(20)}`;
  const chunks = chunkText(text);
  t.deepEqual(chunks[0], { heading: 'Intro', body: 'Short first section.' });
  const long = chunks.slice(1);
  t.true(long.length >= 3);
  for (const chunk of long) {
    t.is(chunk.heading, 'Long');
    t.true(chunk.body.length <= CHUNK_TARGET_CHARS, String(chunk.body.length));
  }
  const overlap = long[0]!.body.slice(-CHUNK_OVERLAP_CHARS / 2);
  t.true(long[1]!.body.includes(overlap));
});
