import { readFile } from 'node:fs/promises';
import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { PLANS, USERS } from '../../seeds/demo-fixtures.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, withDashboard } from '../helpers/dashboard.ts';
import { usageEvent } from '../ingest/support.ts';
import { overflowOf, PHONE } from './staff-support.ts';
import { as, clientBusiness } from './workspace-support.ts';

// The agency's Plans page and the Clients page's plans, figures and bill (docs/billing.md).
const test = withDashboard(anyTest);

const planRow = (page: Page, name: string) =>
  page.locator('#plan-rows tr', { has: page.locator('th', { hasText: new RegExp(`^${name}$`) }) });
const cells = async (page: Page, row: string) => page.locator(row).locator('th, td').allInnerTexts();

async function openPlans(page: Page, origin: string): Promise<void> {
  await signIn(page, origin, USERS.owner.email);
  await page.getByRole('link', { name: 'Plans' }).click();
  await page.locator('#plan-list[data-loaded="true"]').waitFor();
}

test.serial(
  'the Plans page lists the plans with price, markup and limits, creates and edits one, and says the guards’ 409s in words',
  async (t) => {
    const { page } = await t.context.open({ bypassCSP: true });
    await openPlans(page, t.context.origin);
    t.deepEqual(await planRow(page, 'Starter').locator('th, td').allInnerTexts(), [
      'Starter',
      'Public',
      'Active',
      '$0.00',
      '0%',
      'No limit',
      '10',
      'No limit',
      'No limit',
      'No limit',
      'Edit',
    ]);

    // Guard 2: the only active public plan stays while businesses may register themselves.
    await page.getByRole('button', { name: 'Edit Starter' }).click();
    await page.getByLabel('Active: businesses can be on it').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#plan-said', { hasText: 'This is your last active public plan, and businesses may register themselves' }).waitFor();
    await page.getByRole('button', { name: 'Cancel' }).click();

    await page.getByLabel('Name', { exact: true }).fill('Growth');
    await page.getByLabel('Price per month (USD)').fill('49.99');
    await page.getByLabel('Markup on usage (%)').fill('30');
    await page.getByLabel('Agents').fill('3');
    await page.getByLabel('Usage per month (USD)').fill('25');
    await page.getByRole('button', { name: 'Create plan' }).click();
    await page.locator('#plan-said', { hasText: 'Growth was created.' }).waitFor();
    await planRow(page, 'Growth').waitFor();
    t.deepEqual(await planRow(page, 'Growth').locator('th, td').allInnerTexts(), [
      'Growth',
      'Public',
      'Active',
      '$49.99',
      '30%',
      '3',
      'No limit',
      'No limit',
      'No limit',
      '$25.00',
      'Edit',
    ]);
    const token = await t.context.t.login(USERS.owner.email);
    const listed = (await as(t, token).get('/api/plans').expect(200)).body as { name: string; priceUsdPerMonth: number; limits: object }[];
    t.like(
      listed.find((plan) => plan.name === 'Growth'),
      {
        priceUsdPerMonth: 49.99,
        usageMarkupPercent: 30,
        limits: { maxAgents: 3, maxUsers: null, maxEndUserMessagesPerMonth: null, maxDocumentsMb: null, monthlyUsageUsd: 25 },
      },
    );
    t.deepEqual(await seriousViolations(page), [], 'Plans: axe');
    await screenshot(page, 'console-plans');

    // Edit: a new price, the agents' limit removed, a documents limit, private.
    await page.getByRole('button', { name: 'Edit Growth' }).click();
    t.is(await page.getByLabel('Price per month (USD)').inputValue(), '49.99');
    await page.getByLabel('Price per month (USD)').fill('59');
    await page.getByLabel('Agents').fill('');
    await page.getByLabel('Documents (MB)').fill('500');
    await page.getByLabel('Public: businesses may register themselves on it').uncheck();
    await page.getByRole('button', { name: 'Save changes' }).click();
    await page.locator('#plan-said', { hasText: 'Growth was saved.' }).waitFor();
    await planRow(page, 'Growth').filter({ hasText: '$59.00' }).waitFor();
    t.deepEqual((await planRow(page, 'Growth').locator('th, td').allInnerTexts()).slice(1, 10), [
      'Private',
      'Active',
      '$59.00',
      '30%',
      'No limit',
      'No limit',
      'No limit',
      '500 MB',
      '$25.00',
    ]);

    // Guard 1: self-registration needs an active public plan.
    await page.getByLabel('Businesses may register themselves', { exact: true }).uncheck();
    await page.getByRole('button', { name: 'Save registration' }).click();
    await page.locator('#registration-said', { hasText: 'Self-registration is off.' }).waitFor();
    await as(t, token).patch(`/api/plans/${PLANS.starter.id}`, { isPublic: false }).expect(200);
    await page.getByLabel('Businesses may register themselves', { exact: true }).check();
    await page.getByRole('button', { name: 'Save registration' }).click();
    await page
      .locator('#registration-said', { hasText: 'Businesses cannot register themselves while no plan is both active and public' })
      .waitFor();
    t.false(await page.getByLabel('Businesses may register themselves', { exact: true }).isChecked());
    await page.setViewportSize(PHONE);
    t.is(await overflowOf(page), 0, 'Plans at phone width: no sideways scrolling');
    t.deepEqual(await seriousViolations(page), [], 'Plans at phone width: axe');
    await screenshot(page, 'console-plans-phone');
    // Back as the demo has it, for the next test.
    await as(t, token).patch(`/api/plans/${PLANS.starter.id}`, { isPublic: true }).expect(200);
    await as(t, token).patch('/api/organization/my', { allowBusinessRegistration: true }).expect(200);
    await page.context().close();
  },
);

test.serial(
  'Clients shows each client’s plan, cost and billed amount, moves a client to another plan, and shows the month’s bill with its CSV, at phone width',
  async (t) => {
    const token = await t.context.t.login(USERS.owner.email);
    const bakery = await clientBusiness(t, 'Bakery', token);
    const premium = (
      await as(t, token)
        .post('/api/plans', { name: 'Premium', isPublic: false, isActive: true, priceUsdPerMonth: 100, usageMarkupPercent: 20 })
        .expect(201)
    ).body.id as string;
    await as(t, token, bakery.id)
      .post('/api/ai/org-usage/events', {
        events: [
          usageEvent({ costUsd: 2.5, createdAt: new Date(Date.now() - 60_000).toISOString() }),
          usageEvent({ costUsd: 40, createdAt: new Date(Date.now() - 60_000).toISOString(), source: 'byok' }),
        ],
      })
      .expect(200);

    const { page } = await t.context.open({ bypassCSP: true, viewport: PHONE });
    await signIn(page, t.context.origin, USERS.owner.email);
    await page.getByRole('link', { name: 'Clients' }).click();
    await page.locator('#client-list[data-loaded="true"]').waitFor();
    const row = `#client-rows tr[data-business-id="${bakery.id}"]`;
    t.is(await page.locator(`${row} .plan-name`).innerText(), 'Starter');
    t.deepEqual(
      (await cells(page, row)).slice(2, 7),
      ['1', '1', '0', '$2.50', '$2.50'],
      'people, agents, turns, cost and billed (no markup)',
    );

    await page.getByLabel('New plan for Bakery').selectOption({ label: 'Premium' });
    await page.getByRole('button', { name: 'Change plan for Bakery' }).click();
    await page.locator('#clients-status', { hasText: 'Bakery is on Premium from now.' }).waitFor();
    t.is(await page.locator(`${row} .plan-name`).innerText(), 'Premium');
    t.deepEqual((await cells(page, row)).slice(5, 7), ['$2.50', '$103.00'], 'billed: the plan’s price and the usage with its 20% markup');
    const shown = await as(t, await t.context.t.login(bakery.ownerEmail))
      .get('/api/organization/my')
      .expect(200);
    t.is(shown.body.plan.id, premium);

    // The month's bill: Premium's price, the platform-key usage (the BYOK $40 is not billed), the markup.
    const month = new Date().toISOString().slice(0, 7);
    await page.locator(`#bill-table[data-loaded="true"][data-month="${month}"]`).waitFor();
    t.deepEqual(await cells(page, `#bill-rows tr[data-business-id="${bakery.id}"]`), [
      'Bakery',
      'Premium',
      '$100.00',
      '$2.50',
      '20%',
      '$3.00',
      '$103.00',
    ]);
    t.regex(await page.locator('#bill-status').innerText(), /^Still running/);
    const bill = (await as(t, token).get(`/api/agency/billing?month=${month}`).expect(200)).body as { totals: { totalUsd: number } };
    t.is(
      (await page.locator('#bill-totals th, #bill-totals td').allInnerTexts()).at(-1),
      `$${bill.totals.totalUsd.toFixed(2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')}`,
    );
    t.is(await overflowOf(page), 0, 'Clients at phone width: no sideways scrolling');
    t.deepEqual(await seriousViolations(page), [], 'Clients with the bill: axe');
    await screenshot(page, 'console-clients-bill-phone');

    const [download] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download CSV' }).click()]);
    t.is(download.suggestedFilename(), `bill-${month}.csv`);
    const saved = await readFile((await download.path())!, 'utf8');
    const csv = await as(t, token).get(`/api/agency/billing?month=${month}`).set('accept', 'text/csv').expect(200);
    t.is(saved, csv.text, 'the file is the API’s CSV');
    t.true(
      saved.startsWith('businessId,businessName,planId,planName,planPriceUsd,usageCostUsd,usageMarkupPercent,usageBilledUsd,totalUsd\r\n'),
    );
    t.true(saved.includes(`${bakery.id},Bakery,${premium},Premium,100.00,2.50,20,3.00,103.00\r\n`));

    // An earlier month is final and has no usage of Bakery's.
    const earlier = new Date(Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth() - 1, 1)).toISOString().slice(0, 7);
    await page.getByLabel('Month (UTC)').fill(earlier);
    await page.locator(`#bill-table[data-loaded="true"][data-month="${earlier}"][data-final="true"]`).waitFor();
    t.regex(await page.locator('#bill-status').innerText(), /^Final/);
    t.is(await page.locator(`#bill-rows tr[data-business-id="${bakery.id}"]`).count(), 0, 'Bakery did not exist then');
    await page.context().close();
  },
);
