import anyTest, { type ExecutionContext } from 'ava';
import { sql } from 'slonik';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';
import { chatConfig, provider, type T as ChatT } from '../chat/support.ts';
import { usageEvent } from '../ingest/support.ts';

// Development mode: a BYOK base URL on 127.0.0.1 passes the outbound URL policy.
const test = withDashboard(anyTest, { app: { config: chatConfig() } });
type T = ExecutionContext<DashboardContext>;
const agent = AGENTS.research.id;

const auth = async (t: T) => `Bearer ${await t.context.t.login('owner@demo.test')}`;
const readAgent = async (t: T) =>
  (
    await t.context.t
      .http()
      .get(`/api/ai/agents/${agent}`)
      .set('authorization', await auth(t))
      .expect(200)
  ).body as Record<string, unknown>;

async function open(t: T, hash: string, origin = t.context.origin, viewport = { width: 1280, height: 900 }) {
  const { page } = await t.context.open({ viewport });
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${origin}/dashboard${hash}`);
  return page;
}

test.serial(
  'the agent page edits instructions, model (from the priced models), temperature and output limit; a phone shows it whole',
  async (t) => {
    const page = await open(t, `#/agents/${agent}`);
    const instructions = page.getByLabel('Instructions');
    await instructions.waitFor();
    t.regex(await instructions.inputValue(), /Cite your sources/);
    // Only priced models are offered on the platform's key.
    const model = page.getByRole('combobox', { name: 'Model', exact: true });
    const options = await model.locator('option').allTextContents();
    t.true(options.some((text) => text.startsWith('openai/gpt-4o-mini (in $0.15 / out $0.6')));
    t.false(options.some((text) => text.startsWith('openai/o3-mini')));

    const written = 'You are the research desk.\nAlways cite sources as links.\n'.repeat(20);
    await instructions.fill(written);
    await model.selectOption('anthropic/claude-sonnet-4');
    await page.getByLabel('Temperature').fill('0.4');
    await page.getByLabel('Output limit (tokens)').fill('900');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.locator('#agent-save-status', { hasText: 'Saved.' }).waitFor();
    t.like(await readAgent(t), { instructions: written, modelId: 'anthropic/claude-sonnet-4', temperature: 0.4, maxOutputTokens: 900 });

    // Out of range: said in the page, nothing sent.
    await page.getByLabel('Temperature').fill('3');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.locator('#agent-save-status', { hasText: 'Temperature must be from 0 to 2' }).waitFor();
    t.is((await readAgent(t)).temperature, 0.4);

    // Emptied fields return to the defaults.
    await page.getByLabel('Temperature').fill('');
    await page.getByLabel('Output limit (tokens)').fill('');
    await model.selectOption('');
    await page.getByRole('button', { name: 'Save agent' }).click();
    await page.locator('#agent-save-status', { hasText: 'Saved.' }).waitFor();
    t.like(await readAgent(t), { modelId: null, temperature: null, maxOutputTokens: null });
    await screenshot(page, 'console-agent-definition');

    const phone = await open(t, `#/agents/${agent}`, t.context.origin, { width: 375, height: 800 });
    await phone.getByLabel('Instructions').waitFor();
    const overflow = await phone.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    t.true(overflow <= 0, `${overflow}px wider than the phone`);
    const box = await phone.getByLabel('Instructions').boundingBox();
    t.true(box !== null && box.width > 300 && box.height > 200, 'the instructions field is large on a phone too');
    await screenshot(phone, 'console-agent-definition-phone');
  },
);

test.serial("with the organization's own key the model is free text, with the priced models as suggestions", async (t) => {
  const own = await provider(t as unknown as ChatT, () => ({ kind: 'text', text: 'own' }));
  await t.context.t
    .http()
    .put('/api/ai/provider-key')
    .set('authorization', await auth(t))
    .send({ apiKey: 'sk-own-console-key-1', baseUrl: own.url })
    .expect(204);
  t.teardown(
    async () =>
      void (await t.context.t
        .http()
        .delete('/api/ai/provider-key')
        .set('authorization', await auth(t))),
  );
  const page = await open(t, `#/agents/${agent}`);
  const model = page.getByRole('combobox', { name: 'Model', exact: true });
  await model.waitFor();
  t.is(await model.evaluate((node) => (node as unknown as { tagName: string }).tagName), 'INPUT');
  await model.fill('vendor/any-model-at-all');
  await page.getByRole('button', { name: 'Save agent' }).click();
  await page.locator('#agent-save-status', { hasText: 'Saved.' }).waitFor();
  t.is((await readAgent(t)).modelId, 'vendor/any-model-at-all');
  await t.context.t
    .http()
    .patch(`/api/ai/agents/${agent}`)
    .set('authorization', await auth(t))
    .send({ modelId: null })
    .expect(200);
});

test.serial('the budget form stops new chats at the limit, and a chat refused by the budget or the model rule says why', async (t) => {
  const model = await provider(t as unknown as ChatT, () => ({ kind: 'text', text: 'Paid answer.' }));
  const origin = await t.context.serve(t.context.t.rebuild({ config: chatConfig({ gatewayUrl: model.url }) }));
  // $2 spent now, whatever day of the month the seed's usage reaches: the $1 limit is exceeded.
  await t.context.t
    .http()
    .post('/api/ai/org-usage/events')
    .set('authorization', await auth(t))
    .send({ events: [usageEvent({ costUsd: 2, createdAt: new Date().toISOString() })] })
    .expect(200);
  const settings = await open(t, '#/settings', origin);
  await settings.locator('#budget-state', { hasText: 'No budget' }).waitFor();
  await settings.getByLabel('Monthly limit (USD)').fill('1');
  await settings.getByLabel('Stop new chats at the limit').check();
  await settings.getByRole('button', { name: 'Save budget' }).click();
  await settings.locator('#budget-state', { hasText: 'New chats stop at the limit.' }).waitFor();
  const budget = (
    await t.context.t
      .http()
      .get('/api/ai/org-usage/budget')
      .set('authorization', await auth(t))
      .expect(200)
  ).body;
  t.like(budget, { monthlyLimitUsd: 1, enforce: true, status: 'exceeded' });
  await screenshot(settings, 'console-budget-enforced');

  // Demo Agency's spend is over $1 this month: the chat is refused, and the page says why.
  const chat = await open(t, `#/agents/${agent}/chat`, origin);
  await chat.getByRole('textbox', { name: 'Message', exact: true }).fill('hello');
  await chat.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await chat.locator('#chat-status', { hasText: 'The chat was refused' }).waitFor();
  t.regex(await chat.locator('#chat-status').innerText(), /budget is used up: \$[\d,.]+ spent this month of a \$1\.00 limit/);
  t.is(model.requests.length, 0);

  // Without enforcement it chats; an unpriced model is refused with its own reason.
  await settings.getByLabel('Stop new chats at the limit').uncheck();
  await settings.getByRole('button', { name: 'Save budget' }).click();
  await settings.locator('#budget-state', { hasText: 'The limit only sends alerts.' }).waitFor();
  await t.context.t.db.pool.query(sql.unsafe`UPDATE agents SET model_id = 'vendor/unpriced' WHERE id = ${agent}`);
  t.teardown(() => t.context.t.db.pool.query(sql.unsafe`UPDATE agents SET model_id = NULL WHERE id = ${agent}`));
  const refused = await open(t, `#/agents/${agent}/chat`, origin, { width: 375, height: 800 });
  await refused.getByRole('textbox', { name: 'Message', exact: true }).fill('hello again');
  await refused.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await refused.locator('#chat-status', { hasText: 'The chat was refused' }).waitFor();
  t.regex(await refused.locator('#chat-status').innerText(), /"vendor\/unpriced" is not available/);
  t.is(model.requests.length, 0);
  await screenshot(refused, 'console-chat-refused-phone');
  await t.context.t
    .http()
    .delete('/api/ai/org-usage/budget')
    .set('authorization', await auth(t))
    .expect(204);
});

test.serial('an answer cut at its length limit says so in the page', async (t) => {
  const model = await provider(t as unknown as ChatT, () => ({ kind: 'huge', bytes: 1536 * 1024 }));
  const origin = await t.context.serve(t.context.t.rebuild({ config: chatConfig({ gatewayUrl: model.url }) }));
  const chat = await open(t, `#/agents/${agent}/chat`, origin);
  await chat.getByRole('textbox', { name: 'Message', exact: true }).fill('write a lot');
  await chat.getByRole('textbox', { name: 'Message', exact: true }).press('Enter');
  await chat.locator('#chat-status', { hasText: 'The answer stopped at its length limit' }).waitFor({ timeout: 30_000 });
  t.is(model.requests.length, 1);
});
