import anyTest, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { testConfig } from '../helpers/app.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);
type T = ExecutionContext<DashboardContext>;

const PHONE = { width: 375, height: 800 };

type Agent = { id: string; name: string; description: string; modelId: string | null; instructions: string };

async function agentsOfApi(t: T): Promise<Agent[]> {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t.http().get('/api/ai/agents').set('authorization', `Bearer ${token}`).expect(200);
  return (response.body as { agents: Agent[] }).agents;
}

/** Signed in as the demo owner on `hash`; `bypassCSP` lets axe-core's inline script run. */
async function open(t: T, hash: string, viewport = { width: 1280, height: 900 }, origin = t.context.origin): Promise<Page> {
  const { page } = await t.context.open({ viewport, bypassCSP: true });
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${origin}/dashboard${hash}`);
  return page;
}

async function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

async function createThroughForm(page: Page, fields: { name: string; description?: string; model?: string; instructions?: string }) {
  const form = page.locator('#agent-create-form');
  await form.getByLabel('Name').fill(fields.name);
  if (fields.description !== undefined) await form.getByLabel('Description').fill(fields.description);
  if (fields.model !== undefined) await form.getByRole('combobox', { name: 'Model' }).selectOption(fields.model);
  if (fields.instructions !== undefined) await form.getByLabel('Instructions').fill(fields.instructions);
  await form.getByRole('button', { name: 'Create agent' }).click();
  await page.locator('#agent-create-status', { hasText: `${fields.name} was created.` }).waitFor();
}

test.serial('Create agent sends name, description, model and instructions, and lists the new agent; on a phone too', async (t) => {
  const page = await open(t, '#/agents');
  await page.locator('#agent-create-form').waitFor();
  // Only priced models are offered on the platform's key, the default first.
  const options = await page.locator('#agent-create-form').getByRole('combobox', { name: 'Model' }).locator('option').allTextContents();
  t.is(options[0], "The platform's default model");
  t.true(options.some((text) => text.startsWith('anthropic/claude-sonnet-4 (in $')));

  // A name is needed: said in the page, nothing sent.
  const before = (await agentsOfApi(t)).length;
  await page.locator('#agent-create-form').getByRole('button', { name: 'Create agent' }).click();
  await page.locator('#agent-create-status', { hasText: 'Give the agent a name.' }).waitFor();
  t.is((await agentsOfApi(t)).length, before);

  const instructions = 'You answer questions about invoices.\nBe brief.';
  await createThroughForm(page, {
    name: 'Billing Helper',
    description: 'Answers invoice questions',
    model: 'anthropic/claude-sonnet-4',
    instructions,
  });
  const created = (await agentsOfApi(t)).find((agent) => agent.name === 'Billing Helper');
  t.like(created, { description: 'Answers invoice questions', modelId: 'anthropic/claude-sonnet-4', instructions });
  const item = page.locator(`#agent-list li[data-agent-id="${created!.id}"]`);
  await item.waitFor();
  t.is(await item.locator('h3').innerText(), 'Billing Helper');
  t.is(await page.locator('#agent-create-form').getByLabel('Name').inputValue(), '', 'the form is emptied for the next one');
  await screenshot(page, 'console-agent-create');

  const phone = await open(t, '#/agents', PHONE);
  await phone.locator('#agent-create-form').waitFor();
  t.true((await overflowOf(phone)) <= 0, 'the agents page with its form fits a phone');
  t.deepEqual(await seriousViolations(phone), [], 'agents page: axe');
  await createThroughForm(phone, { name: 'Phone Bot' });
  t.like(
    (await agentsOfApi(t)).find((agent) => agent.name === 'Phone Bot'),
    { description: '', modelId: null, instructions: '' },
  );
  await phone.locator('#agent-list li h3', { hasText: 'Phone Bot' }).waitFor();
  await screenshot(phone, 'console-agent-create-phone');
  await page.context().close();
  await phone.context().close();
});

test.serial('Archive asks first: Cancel and Escape keep the agent, Archive removes it and returns to the list', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const created = await t.context.t
    .http()
    .post('/api/ai/agents')
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'Old Bot' })
    .expect(201);
  const id = created.body.id as string;
  const page = await open(t, `#/agents/${id}`);
  const archive = page.getByRole('button', { name: 'Archive agent' });
  await archive.waitFor();
  const dialog = page.getByRole('dialog', { name: 'Archive Old Bot?' });

  await archive.click();
  await dialog.waitFor();
  // The safe choice has the focus.
  t.true(
    await dialog
      .getByRole('button', { name: 'Cancel' })
      .evaluate((node) => node === (node.ownerDocument as { activeElement: unknown }).activeElement),
  );
  t.deepEqual(await seriousViolations(page), [], 'the open dialog: axe');
  await screenshot(page, 'console-agent-archive-dialog');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  await archive.click();
  await dialog.waitFor();
  await page.keyboard.press('Escape');
  await dialog.waitFor({ state: 'hidden' });
  t.true(
    (await agentsOfApi(t)).some((agent) => agent.id === id),
    'cancelled twice: the agent is still there',
  );

  await archive.click();
  await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
  await page.locator('#agents-status', { hasText: 'Old Bot was archived.' }).waitFor();
  t.is(new URL(page.url()).hash, '#/agents');
  await page.locator('#agent-list li').first().waitFor();
  t.is(await page.locator(`#agent-list li[data-agent-id="${id}"]`).count(), 0);
  t.false((await agentsOfApi(t)).some((agent) => agent.id === id));
  await page.context().close();
});

test.serial('on a phone the agent page and its Archive dialog fit the width, pass axe, and archive', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  const name = 'A phone-archived agent with a rather long name that has to wrap';
  const created = await t.context.t.http().post('/api/ai/agents').set('authorization', `Bearer ${token}`).send({ name }).expect(201);
  const page = await open(t, `#/agents/${created.body.id as string}`, PHONE);
  await page.getByRole('button', { name: 'Archive agent' }).waitFor();
  t.true((await overflowOf(page)) <= 0, 'the agent page fits a phone');
  t.deepEqual(await seriousViolations(page), [], 'agent page: axe');
  await page.getByRole('button', { name: 'Archive agent' }).click();
  const dialog = page.getByRole('dialog', { name: `Archive ${name}?` });
  await dialog.waitFor();
  const box = await dialog.boundingBox();
  t.true(box !== null && box.x >= 0 && box.x + box.width <= PHONE.width, 'the dialog is inside the screen');
  t.true((await overflowOf(page)) <= 0);
  t.deepEqual(await seriousViolations(page), [], 'the open dialog on a phone: axe');
  await screenshot(page, 'console-agent-archive-dialog-phone');
  await dialog.getByRole('button', { name: 'Archive', exact: true }).click();
  await page.locator('#agents-status', { hasText: 'was archived.' }).waitFor();
  t.false((await agentsOfApi(t)).some((agent) => agent.name === name));
  await page.context().close();
});

test.serial('at the cap of agents the form says why the agent was not created', async (t) => {
  const cap = (await agentsOfApi(t)).length;
  const origin = await t.context.serve(t.context.t.rebuild({ config: { ...testConfig(), agents: { perOrganization: cap } } }));
  const page = await open(t, '#/agents', { width: 1280, height: 900 }, origin);
  const form = page.locator('#agent-create-form');
  await form.getByLabel('Name').fill('One too many');
  await form.getByRole('button', { name: 'Create agent' }).click();
  await page
    .locator('#agent-create-status', { hasText: `An organization may have at most ${cap} agents; archive one to create another.` })
    .waitFor();
  t.is((await agentsOfApi(t)).length, cap);
  t.is(await form.getByLabel('Name').inputValue(), 'One too many', 'what was typed stays');
  await page.context().close();
});
