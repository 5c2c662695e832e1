import anyTest, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { sql } from 'slonik';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);
type T = ExecutionContext<DashboardContext>;
const agent = AGENTS.support.id;

type Guardrails = { blockedTerms: string[]; moderationModel: string | null; refusal: string };
const readGuardrails = async (t: T) =>
  (
    (
      await t.context.t
        .http()
        .get(`/api/ai/agents/${agent}`)
        .set('authorization', `Bearer ${await t.context.t.login('owner@demo.test')}`)
        .expect(200)
    ).body as { guardrails: Guardrails }
  ).guardrails;

async function open(t: T, options: { width?: number; axe?: boolean } = {}): Promise<Page> {
  const { page } = await t.context.open({
    viewport: { width: options.width ?? 1280, height: 900 },
    ...(options.axe ? { bypassCSP: true } : {}),
  });
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${t.context.origin}/dashboard#/agents/${agent}`);
  await page.locator('#guardrails-form').waitFor();
  return page;
}

const focusedName = (page: Page) =>
  page.evaluate(() => {
    const active = (globalThis as unknown as { document: { activeElement: { getAttribute(name: string): string | null } | null } }).document
      .activeElement;
    return active?.getAttribute('aria-label') ?? active?.getAttribute('id') ?? '';
  });

/** The text of the error line that `field` names in its `aria-describedby`. */
const errorOf = async (page: Page, selector: string) => {
  const ids = ((await page.locator(selector).getAttribute('aria-describedby')) ?? '').split(' ').filter((id) => id.endsWith('-error'));
  return (await Promise.all(ids.map((id) => page.locator(`#${id}`).textContent()))).join(' ');
};

test.serial(
  'the agent page edits the guardrails: blocked terms, moderation model and refusal are saved and shown after a reload',
  async (t) => {
    t.deepEqual(await readGuardrails(t), { blockedTerms: [], moderationModel: null, refusal: "Sorry, I can't help with that." });
    const page = await open(t);
    t.regex((await page.locator('#guardrails-terms-help').textContent()) ?? '', /1 to 100 characters/);
    t.regex((await page.locator('#guardrails-terms-count').textContent()) ?? '', /0 of at most 200/);
    t.regex((await page.locator('#guardrails-refusal-help').textContent()) ?? '', /1 to 500 characters/);
    t.is(await page.getByLabel('Refusal').getAttribute('maxlength'), '500');
    for (const [n, term] of [
      [1, 'refund'],
      [2, 'competitor name'],
      [3, 'to be removed'],
    ] as const) {
      await page.getByRole('button', { name: 'Add a term' }).click();
      await page.getByRole('textbox', { name: `Blocked term ${n}` }).fill(term);
    }
    await page.getByRole('button', { name: 'Remove Blocked term 3' }).click();
    const moderation = page.getByRole('combobox', { name: 'Moderation model' });
    // Only priced models are offered on the platform's key.
    const offered = await moderation.locator('option').allTextContents();
    t.true(offered.includes('openai/gpt-4o-mini'));
    t.false(offered.includes('openai/o3-mini'));
    await moderation.selectOption('openai/gpt-4o-mini');
    await page.getByLabel('Refusal').fill('I can only help with orders.');
    await page.getByRole('button', { name: 'Save guardrails' }).click();
    await page.locator('#guardrails-save-status', { hasText: 'Saved.' }).waitFor();
    t.deepEqual(await readGuardrails(t), {
      blockedTerms: ['refund', 'competitor name'],
      moderationModel: 'openai/gpt-4o-mini',
      refusal: 'I can only help with orders.',
    });

    await page.reload();
    await page.getByRole('textbox', { name: 'Blocked term 2' }).waitFor();
    t.is(await page.getByRole('textbox', { name: 'Blocked term 1' }).inputValue(), 'refund');
    t.is(await page.getByRole('textbox', { name: 'Blocked term 2' }).inputValue(), 'competitor name');
    t.is(await page.locator('#guardrails-terms-rows li').count(), 2);
    t.is(await page.getByRole('combobox', { name: 'Moderation model' }).inputValue(), 'openai/gpt-4o-mini');
    t.is(await page.getByLabel('Refusal').inputValue(), 'I can only help with orders.');
    await screenshot(page, 'console-guardrails-saved');

    // None: the moderation check is removed.
    await page.getByRole('combobox', { name: 'Moderation model' }).selectOption({ label: 'None: blocked terms only' });
    await page.getByRole('button', { name: 'Save guardrails' }).click();
    await page.locator('#guardrails-save-status', { hasText: 'Saved.' }).waitFor();
    t.is((await readGuardrails(t)).moderationModel, null);
    await page.context().close();
  },
);

test.serial('an unpriced moderation model and an empty refusal are refused by the API and shown at their fields', async (t) => {
  await t.context.t.db.pool.query(
    sql.unsafe`UPDATE agents SET guardrails = guardrails || '{"moderationModel": "vendor/unpriced"}'::jsonb WHERE id = ${agent}`,
  );
  const before = await readGuardrails(t);
  const page = await open(t, { axe: true });
  const moderation = page.getByRole('combobox', { name: 'Moderation model' });
  t.is(await moderation.inputValue(), 'vendor/unpriced', 'the stored model is shown, not silently replaced');
  await page.getByRole('button', { name: 'Save guardrails' }).click();
  await page.locator('#guardrails-save-status', { hasText: 'Not saved: see the marked fields.' }).waitFor();
  t.is(await moderation.getAttribute('aria-invalid'), 'true');
  t.regex(await errorOf(page, '#guardrails-moderation'), /"vendor\/unpriced" is not available/);
  t.is(await focusedName(page), 'guardrails-moderation');
  t.deepEqual(await readGuardrails(t), before);

  // A refusal must be at least one character: the API's 400 names the field.
  await moderation.selectOption('openai/gpt-4o-mini');
  await page.getByLabel('Refusal').fill('');
  await page.getByRole('button', { name: 'Save guardrails' }).click();
  await page.locator('#guardrails-save-status', { hasText: 'Not saved' }).waitFor();
  t.is(await moderation.getAttribute('aria-invalid'), null, 'the mended field is no longer marked');
  t.is(await page.getByLabel('Refusal').getAttribute('aria-invalid'), 'true');
  t.regex(await errorOf(page, '#guardrails-refusal'), /1 to 500 characters/);
  t.is(await focusedName(page), 'guardrails-refusal');
  t.deepEqual(await readGuardrails(t), before);
  t.deepEqual(await seriousViolations(page), [], 'axe: errors shown');
  await page.context().close();
});

test.serial(
  'the guardrails fit a phone and axe finds no serious violation; a term is added and saved with the keyboard alone',
  async (t) => {
    const page = await open(t, { width: 375, axe: true });
    await page.getByRole('button', { name: 'Add a term' }).focus();
    await page.keyboard.press('Enter');
    t.is(await focusedName(page), 'Blocked term 3');
    await page.keyboard.type('chargeback');
    await page.getByRole('button', { name: 'Save guardrails' }).focus();
    await page.keyboard.press('Enter');
    // The stored model is still the unpriced one (the test before): refused, with the focus on it.
    await page.locator('#guardrails-save-status', { hasText: 'Not saved' }).waitFor();
    t.is(await focusedName(page), 'guardrails-moderation');
    await page.keyboard.press('Home'); // the first option: none
    t.is(await page.getByRole('combobox', { name: 'Moderation model' }).inputValue(), '');
    await page.getByRole('button', { name: 'Save guardrails' }).focus();
    await page.keyboard.press('Enter');
    await page.locator('#guardrails-save-status', { hasText: 'Saved.' }).waitFor();
    t.deepEqual((await readGuardrails(t)).blockedTerms, ['refund', 'competitor name', 'chargeback']);
    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    t.true(overflow <= 0, `${overflow}px wider than the phone`);
    t.deepEqual(await seriousViolations(page), [], 'axe');
    await screenshot(page, 'console-guardrails-phone');
    await page.context().close();
  },
);
