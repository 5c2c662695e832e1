import anyTest, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';
import type { ChatRequest } from '../helpers/openai-peer.ts';
import { chatConfig, provider, sendChat, userMessage, type T as ChatT } from '../chat/support.ts';
import { overflowOf, PHONE } from './staff-support.ts';

const test = withDashboard(anyTest, { app: { config: chatConfig() } });
type T = ExecutionContext<DashboardContext>;
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- response bodies read field by field
type Json = Record<string, any>;

const POLICY = 'Returns are accepted within 30 days.';

/** The scripted model: it knows the return window only when the system message says it. */
const answerOf = (body: ChatRequest) => {
  const system = body.messages.find((message) => message.role === 'system');
  const knows = typeof system?.content === 'string' && system.content.includes(POLICY);
  return { kind: 'text' as const, text: knows ? 'You may return it within 30 days.' : 'Please ask the shop.' };
};

/** The app served with the scripted model, a new agent of Demo Agency (version 1) and the owner's API calls. */
async function setUp(t: T, name: string) {
  const model = await provider(t as unknown as ChatT, answerOf);
  const origin = await t.context.serve(t.context.t.rebuild({ config: chatConfig({ gatewayUrl: model.url }) }));
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const http = t.context.t.http;
  const call = {
    get: async (path: string) => (await http().get(path).set('authorization', auth).expect(200)).body as Json,
    post: async (path: string, body: object, status = 201) =>
      (await http().post(path).set('authorization', auth).send(body).expect(status)).body as Json,
    patch: async (path: string, body: object) => (await http().patch(path).set('authorization', auth).send(body).expect(200)).body as Json,
  };
  const agent = await call.post('/api/ai/agents', { name, description: 'Answers shoppers.', instructions: 'Be brief.' });
  return { model, origin, call, agent, base: `/api/ai/agents/${agent.id as string}` };
}

async function open(t: T, origin: string, hash: string, viewport = { width: 1280, height: 900 }): Promise<Page> {
  const { page } = await t.context.open({ viewport, bypassCSP: true });
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${origin}/dashboard${hash}`);
  return page;
}

test.serial(
  'the versions page lists each change with its note, diffs two versions side by side and restores one after a confirmation',
  async (t) => {
    const { origin, call, agent, base } = await setUp(t, 'Versioned Shop Helper');
    await call.patch(base, { instructions: 'Be brief.\nGreet the shopper.', versionNote: 'A greeting' });
    await call.patch(base, {
      instructions: 'Be brief.\nGreet the shopper.\nNever promise refunds.',
      temperature: 0.3,
      versionNote: 'No refund promises',
    });

    const page = await open(t, origin, `#/agents/${agent.id}`);
    await page.getByRole('link', { name: 'Versions of Versioned Shop Helper' }).click();
    await page.getByRole('heading', { level: 2, name: 'Versions of Versioned Shop Helper' }).waitFor();
    const items = page.locator('#version-list > li');
    await items.nth(2).waitFor();
    t.deepEqual(await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-version'))), ['3', '2', '1']);
    t.regex(await items.nth(0).innerText(), /Version 3 \(current\)[\s\S]*by Demo Owner|Version 3 \(current\)[\s\S]*owner@demo\.test/);
    t.regex(await items.nth(0).innerText(), /Note: No refund promises/);
    t.regex(await items.nth(1).innerText(), /Note: A greeting/);
    // The newest is the definition now: only older versions can be restored.
    t.is(await items.nth(0).getByRole('button').count(), 0);

    // By default the two newest, side by side: instructions and temperature changed, nothing else.
    await page.locator('#version-diff').waitFor();
    t.is(await page.locator('#version-diff-summary').innerText(), 'Changed from version 2 to 3: Instructions, Temperature.');
    const instructions = page.locator('#version-diff tr[data-field="Instructions"]');
    t.is(await instructions.getAttribute('data-changed'), 'true');
    t.is(await instructions.locator('td').nth(1).locator('ins').textContent(), 'Added: Never promise refunds.');
    t.is(await instructions.locator('td').nth(0).locator('del').count(), 0);
    t.is(await page.locator('#version-diff tr[data-field="Name"]').getAttribute('data-changed'), 'false');
    t.regex(await page.locator('#version-diff tr[data-field="Temperature"]').innerText(), /The provider's default\s+0\.3/);

    // Version 1 beside version 3.
    await page.getByLabel('Older side').selectOption('1');
    await page.locator('#version-diff-summary', { hasText: 'from version 1 to 3' }).waitFor();
    t.deepEqual(await page.locator('#version-diff thead th').allInnerTexts(), ['Field', 'Version 1', 'Version 3']);

    // Restore version 1: Cancel first (focused), then Restore.
    await page.getByRole('button', { name: 'Restore version 1 of Versioned Shop Helper' }).click();
    const dialog = page.getByRole('dialog', { name: 'Restore version 1 of Versioned Shop Helper?' });
    await dialog.waitFor();
    t.is(
      await page.evaluate(() => (globalThis as unknown as { document: { activeElement: { id: string } } }).document.activeElement.id),
      'version-restore-1-cancel',
    );
    t.deepEqual(await seriousViolations(page), [], 'axe with the dialog open');
    await dialog.getByRole('button', { name: 'Cancel' }).click();
    t.is((await call.get(`${base}/versions`)).versions.length, 3, 'cancelled: nothing restored');
    await page.getByRole('button', { name: 'Restore version 1 of Versioned Shop Helper' }).click();
    await dialog.getByRole('button', { name: 'Restore' }).click();
    await page.locator('#version-restore-status', { hasText: 'Version 1 was restored as a new version.' }).waitFor();
    t.deepEqual(await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-version'))), ['4', '3', '2', '1']);
    t.regex(await items.nth(0).innerText(), /Note: Restored version 1/);
    const versions = (await call.get(`${base}/versions`)).versions as Json[];
    t.like(versions[0], { version: 4, note: 'Restored version 1', definition: { instructions: 'Be brief.', temperature: null } });
    t.like(await call.get(base), { instructions: 'Be brief.', temperature: null });
    t.is(await page.locator('#version-diff-summary').innerText(), 'Changed from version 3 to 4: Instructions, Temperature.');
    t.deepEqual(await seriousViolations(page), [], 'axe');
    await screenshot(page, 'console-agent-versions');

    const phone = await open(t, origin, `#/agents/${agent.id}/versions`, PHONE);
    await phone.locator('#version-diff').waitFor();
    t.is(await overflowOf(phone), 0, 'no sideways scrolling at phone width');
    t.deepEqual(await seriousViolations(phone), [], 'axe at phone width');
    await screenshot(phone, 'console-agent-versions-phone');
    await phone.context().close();
    await page.context().close();
  },
);

test.serial(
  'a case is written on the Tests page; a run on the current definition fails with its reason; a passing run of the draft lets the gated save through',
  async (t) => {
    const { origin, call, agent, base, model } = await setUp(t, 'Tested Shop Helper');
    const page = await open(t, origin, `#/agents/${agent.id}`);
    await page.getByRole('link', { name: 'Tests of Tested Shop Helper' }).click();
    await page.getByRole('heading', { level: 2, name: 'Tests of Tested Shop Helper' }).waitFor();
    await page.locator('#case-count', { hasText: 'No test cases yet' }).waitFor();
    t.true(await page.getByRole('button', { name: 'Run the tests of Tested Shop Helper' }).isDisabled());

    // Write a case: a user's question, and what the answer must say.
    const form = page.getByRole('form', { name: 'Add a test case to Tested Shop Helper' });
    await form.getByLabel('Name of the case').fill('Return window');
    await form.getByLabel('Message 1: text').fill('How long do I have to return a coat?');
    await form.getByLabel('The answer contains').fill('30 days');
    await form.getByLabel('No tool is called').check();
    await form.getByRole('button', { name: 'Add test case' }).click();
    await page.locator('#case-form-status', { hasText: 'Added "Return window".' }).waitFor();
    const cases = (await call.get(`${base}/eval-cases`)).cases as Json[];
    t.is(cases.length, 1);
    t.like(cases[0], { name: 'Return window', expect: { contains: ['30 days'], noToolCalls: true } });
    t.deepEqual(
      cases[0]!.messages.map((message: Json) => [message.role, message.parts[0].text]),
      [['user', 'How long do I have to return a coat?']],
    );
    t.regex(
      await page.locator('#case-list').innerText(),
      /User: How long do I have to return a coat\?[\s\S]*contains "30 days"; calls no tool/,
    );

    // On the current definition the model does not know the window: failed, with the reason.
    t.true(await page.getByLabel('The current definition').isChecked());
    t.true(await page.getByLabel(/The draft on the agent's page/).isDisabled());
    await page.getByRole('button', { name: 'Run the tests of Tested Shop Helper' }).click();
    await page.locator('#run-status', { hasText: 'Failed: 1 of 1 case failed.' }).waitFor({ timeout: 30_000 });
    const failed = page.locator('#run-result-list > li[data-passed="false"]');
    t.regex(
      await failed.innerText(),
      /Return window: Failed[\s\S]*Why it failed\s+The answer does not contain "30 days"\.[\s\S]*Please ask the shop\.[\s\S]*No tool calls\./,
    );
    await page.locator('#run-list li[data-status="failed"]').waitFor();
    t.deepEqual(await seriousViolations(page), [], 'axe on the Tests page');
    await screenshot(page, 'console-agent-tests-failed');

    // The agent page: require a passing run, then edit the draft. Save waits.
    await page.getByRole('link', { name: "Back to the agent's page" }).click();
    const save = page.getByRole('button', { name: 'Save agent' });
    await page.getByLabel('Require a passing test run before saving Tested Shop Helper').check();
    t.true(await save.isDisabled());
    t.is(await page.locator('#agent-save-gate').innerText(), 'Save waits for a passing test run of this draft.');
    await page.getByLabel('Instructions').fill(`Be brief.\n${POLICY}`);
    t.true(await save.isDisabled());

    // The Tests page runs the draft (chosen for it), which passes.
    await page.getByRole('link', { name: 'Tests of Tested Shop Helper' }).click();
    await page.getByRole('heading', { level: 2, name: 'Tests of Tested Shop Helper' }).waitFor();
    t.true(await page.getByLabel("The draft being edited on the agent's page").isChecked());
    const before = model.requests.length;
    await page.getByRole('button', { name: 'Run the tests of Tested Shop Helper' }).click();
    await page.locator('#run-status', { hasText: 'Passed: every case passed (1 case).' }).waitFor({ timeout: 30_000 });
    t.regex(await page.locator('#run-result-list').innerText(), /Return window: Passed[\s\S]*You may return it within 30 days\./);
    const system = model.requests
      .slice(before)
      .map((request) => request.body.messages.find((message) => message.role === 'system')?.content);
    t.true(system.length > 0 && system.every((content) => typeof content === 'string' && content.includes(POLICY)), 'the draft was tried');
    t.is((await call.get(base)).instructions, 'Be brief.', 'a run does not change the agent');

    // Back on the agent page the draft is there and may be saved; an edit would need a new run.
    await page.getByRole('link', { name: 'Save the tested draft on the page of Tested Shop Helper' }).click();
    await page.locator('#agent-save-gate', { hasText: 'This draft passed its tests: it can be saved.' }).waitFor();
    t.is(await page.getByLabel('Instructions').inputValue(), `Be brief.\n${POLICY}`);
    t.false(await save.isDisabled());
    await page.getByLabel('Temperature').fill('0.5');
    t.true(await save.isDisabled());
    await page.getByLabel('Temperature').fill('');
    t.false(await save.isDisabled());
    const patch = page.waitForRequest((request) => request.method() === 'PATCH');
    await save.click();
    await page.locator('#agent-save-status', { hasText: 'Saved: the tested draft is the agent’s definition now.' }).waitFor();
    const sent = (await patch).postDataJSON() as Json;
    const runs = (await call.get(`${base}/eval-runs`)).runs as Json[];
    t.is(sent.evaluationRunId, runs.find((run) => run.status === 'passed')!.id);
    t.like(await call.get(base), { instructions: `Be brief.\n${POLICY}` });
    // Saved: the gate holds for the next change too.
    t.true(await save.isDisabled());
    await page.context().close();
  },
);

test.serial('the gated save says why the API refused it when the agent changed after the run', async (t) => {
  const { origin, call, agent, base } = await setUp(t, 'Raced Shop Helper');
  await call.post(`${base}/eval-cases`, {
    name: 'Return window',
    messages: [{ role: 'user', parts: [{ type: 'text', text: 'How long to return?' }] }],
    expect: { contains: ['30 days'] },
  });
  const page = await open(t, origin, `#/agents/${agent.id}`, PHONE);
  await page.getByLabel('Require a passing test run before saving Raced Shop Helper').check();
  await page.getByLabel('Instructions').fill(POLICY);
  await page.getByRole('button', { name: 'Test this draft of Raced Shop Helper' }).click();
  await page.locator('#agent-gate-status', { hasText: 'Passed: every case passed (1 case).' }).waitFor({ timeout: 30_000 });
  t.regex(await page.locator('#agent-gate-results').innerText(), /Return window: Passed/);
  t.is(await overflowOf(page), 0, 'no sideways scrolling at phone width');
  t.deepEqual(await seriousViolations(page), [], 'axe on the agent page with a run');
  await screenshot(page, 'console-agent-gate-phone');

  // Someone else changes the description meanwhile: the run no longer tried the resulting definition.
  await call.patch(base, { description: 'Changed elsewhere.' });
  await page.getByRole('button', { name: 'Save agent' }).click();
  await page.locator('#agent-save-status', { hasText: 'Not saved: the agent changed since the run' }).waitFor();
  t.is((await call.get(base)).instructions, 'Be brief.');
  t.true(await page.getByRole('button', { name: 'Save agent' }).isDisabled());
  await page.context().close();
});

test.serial('a case is made from a recorded conversation of the agent: its words up to its last user message', async (t) => {
  const { origin, call, agent, base } = await setUp(t, 'Recorded Shop Helper');
  const auth = `Bearer ${await t.context.t.login('owner@demo.test')}`;
  const first = userMessage('Do you sell coats?', 'u-coats');
  const answered = await sendChat(origin, auth, 'console-case-source', [first], { agent: agent.id as string });
  await sendChat(origin, auth, 'console-case-source', [first, answered.message!, userMessage('How long can I return one?', 'u-return')], {
    agent: agent.id as string,
  });

  const page = await open(t, origin, `#/agents/${agent.id}/tests?from=console-case-source`, PHONE);
  const form = page.getByRole('form', { name: 'Add a test case to Recorded Shop Helper' });
  await form.getByLabel('Conversation of Recorded Shop Helper').waitFor();
  t.true(await form.getByLabel('From a conversation').isChecked());
  t.is(await form.getByLabel('Conversation of Recorded Shop Helper').inputValue(), 'console-case-source');
  await form.getByLabel('Name of the case').fill('Coat returns');
  await form.getByLabel('The answer does not contain').fill('ask the shop');
  await form.getByRole('button', { name: 'Add test case' }).click();
  await page.locator('#case-form-status', { hasText: 'Added "Coat returns".' }).waitFor();
  const [made] = (await call.get(`${base}/eval-cases`)).cases as Json[];
  t.deepEqual(
    made!.messages.map((message: Json) => [message.role, message.parts.map((part: Json) => part.text).join('')]),
    [
      ['user', 'Do you sell coats?'],
      ['assistant', 'Please ask the shop.'],
      ['user', 'How long can I return one?'],
    ],
  );
  t.regex(
    await page.locator('#case-list').innerText(),
    /Coat returns[\s\S]*User: Do you sell coats\?[\s\S]*Agent: Please ask the shop\.[\s\S]*does not contain "ask the shop"/,
  );
  t.is(await overflowOf(page), 0, 'no sideways scrolling at phone width');
  t.deepEqual(await seriousViolations(page), [], 'axe at phone width');
  await screenshot(page, 'console-agent-tests-phone');
  await page.context().close();
});
