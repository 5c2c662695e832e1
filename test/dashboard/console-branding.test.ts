import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { USERS } from '../../seeds/demo-fixtures.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, withDashboard } from '../helpers/dashboard.ts';
import { usageEvent } from '../ingest/support.ts';
import { overflowOf, PHONE } from './staff-support.ts';
import { as, clientBusiness, type ClientBusiness } from './workspace-support.ts';

// The agency's brand in the console (docs/billing.md, "Branding") and a business's plan limits on its usage page.
const test = withDashboard(anyTest);

const LOGO = 'https://cdn.acme.example/logo.png';
/** A 1x1 PNG, served for the logo's https URL by the browser's routing (the test has no network). */
const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64');

/** Serves the logo to `page`; answers how many times the browser fetched it. */
async function serveLogo(page: Page): Promise<() => number> {
  let fetched = 0;
  await page.route(LOGO, async (route) => {
    fetched += 1;
    await route.fulfill({ status: 200, contentType: 'image/png', body: PNG });
  });
  return () => fetched;
}

/** The same server under the host name `localhost` (the brand's host), where the test's origin is 127.0.0.1. */
const brandedOrigin = (origin: string) => `http://localhost:${new URL(origin).port}`;

let bakery: ClientBusiness;

test.serial.before(async (t) => {
  bakery = await clientBusiness(t, 'Bakery', await t.context.t.login(USERS.owner.email));
});

test.serial(
  'the Branding page previews the brand as it is typed and saves it; the header wears it at once, its https logo allowed by the page’s policy',
  async (t) => {
    // The console's own Content-Security-Policy in force (no bypass): the logo must load under it.
    const { page } = await t.context.open();
    const blocked: string[] = [];
    page.on('console', (message) => {
      if (message.text().includes('Content Security Policy')) blocked.push(message.text());
    });
    const fetched = await serveLogo(page);
    await signIn(page, t.context.origin, USERS.owner.email);
    await page.getByRole('link', { name: 'Branding' }).click();
    await page.locator('#branding-form[data-loaded="true"]').waitFor();
    t.is(await page.getByLabel('Product name').inputValue(), 'Agents', "the product's own until the agency has one");

    await page.getByLabel('Product name').fill('Acme AI');
    await page.locator('#brand-preview-name', { hasText: 'Acme AI console' }).waitFor();
    await page.getByLabel('Color').fill('#0f766e');
    await page.locator('#brand-preview[data-color="#0f766e"]').waitFor();
    await page.getByLabel('Logo URL').fill('http://cdn.acme.example/logo.png');
    await page.locator('#brand-preview-warnings', { hasText: 'The logo must be an https URL' }).waitFor();
    t.is(await page.locator('#brand-preview img').count(), 0, 'an http logo is never shown');
    await page.getByLabel('Logo URL').fill(LOGO);
    await page.locator(`#brand-preview img[src="${LOGO}"]`).waitFor();
    t.is(await page.locator('#brand-preview-warnings').innerText(), '');
    t.is(await page.locator('#brand').innerText(), 'Agents console', 'the header changes only once saved');

    await page.getByLabel('Support email').fill('help@acme.example');
    await page.getByLabel('Console hosts').fill(`localhost:${new URL(t.context.origin).port}`);
    await page.getByRole('button', { name: 'Save brand' }).click();
    await page.locator('#branding-said', { hasText: 'Saved: the console wears Acme AI now.' }).waitFor();
    t.is(await page.locator('#brand').innerText(), 'Acme AI console');
    t.is(await page.title(), 'Acme AI console');
    await page.waitForFunction(() => {
      type Logo = { complete: boolean; naturalWidth: number };
      const found = (globalThis as unknown as { document: { querySelector(selector: string): Logo | null } }).document.querySelector(
        '#brand img',
      );
      return found !== null && found.complete && found.naturalWidth > 0;
    });
    t.true(fetched() >= 1, 'the browser fetched the logo');
    t.deepEqual(blocked, [], 'nothing refused by the page’s policy');
    await screenshot(page, 'console-branding');
    const saved = await as(t, await t.context.t.login(USERS.owner.email))
      .get('/api/organization/my/branding')
      .expect(200);
    t.deepEqual(saved.body, {
      productName: 'Acme AI',
      primaryColor: '#0f766e',
      logoUrl: LOGO,
      supportEmail: 'help@acme.example',
      hosts: [`localhost:${new URL(t.context.origin).port}`],
    });
    await page.context().close();
  },
);

test.serial('the Branding page says in words that a host is another agency’s, and passes axe at phone width', async (t) => {
  await as(t, await t.context.t.login(USERS.otherOwner.email))
    .put('/api/organization/my/branding', {
      productName: 'Other',
      primaryColor: '#123456',
      logoUrl: null,
      supportEmail: null,
      hosts: ['taken.example'],
    })
    .expect(200);
  const { page } = await t.context.open({ bypassCSP: true, viewport: PHONE });
  await serveLogo(page);
  await signIn(page, t.context.origin, USERS.owner.email);
  await page.goto(`${t.context.origin}/dashboard#/branding`);
  await page.locator('#branding-form[data-loaded="true"]').waitFor();
  t.is(await page.getByLabel('Product name').inputValue(), 'Acme AI');
  await page.getByLabel('Console hosts').fill('taken.example');
  await page.getByRole('button', { name: 'Save brand' }).click();
  await page.locator('#branding-said', { hasText: 'Another agency’s console is already served on one of these hosts' }).waitFor();
  t.is(await overflowOf(page), 0, 'Branding at phone width: no sideways scrolling');
  t.deepEqual(await seriousViolations(page), [], 'Branding: axe');
  await screenshot(page, 'console-branding-phone');
  await page.context().close();
});

test.serial(
  'the sign-in page wears the brand of the host it is served on, another host the product’s own; a business’s user wears its agency’s once signed in',
  async (t) => {
    const branded = await t.context.open({ bypassCSP: true, viewport: PHONE });
    await serveLogo(branded.page);
    await branded.page.goto(`${brandedOrigin(t.context.origin)}/dashboard`);
    await branded.page.locator('#brand', { hasText: 'Acme AI console' }).waitFor();
    await branded.page.locator(`#brand img[src="${LOGO}"]`).waitFor();
    t.is(await branded.page.title(), 'Acme AI console');
    t.true(await branded.page.locator('#sign-in').isVisible());
    t.deepEqual(await seriousViolations(branded.page), [], 'the branded sign-in page: axe');
    await screenshot(branded.page, 'console-branded-sign-in-phone');
    await branded.page.context().close();

    const { page } = await t.context.open({ bypassCSP: true });
    await serveLogo(page);
    await page.goto(`${t.context.origin}/dashboard`);
    await page.locator('#sign-in').waitFor();
    t.is(await page.locator('#brand').innerText(), 'Agents console', 'a host of no agency: the product’s own');
    await signIn(page, t.context.origin, bakery.ownerEmail);
    await page.locator('#brand', { hasText: 'Acme AI console' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.locator('#brand', { hasText: 'Agents console' }).waitFor();
    await page.context().close();
  },
);

test.serial(
  'a business’s usage page shows its plan’s limits and how much of each is used, at phone width; the agency’s shows none',
  async (t) => {
    const token = await t.context.t.login(USERS.owner.email);
    const limits = { maxAgents: 2, maxUsers: 3, maxEndUserMessagesPerMonth: 100, maxDocumentsMb: 5, monthlyUsageUsd: 10 };
    const planId = (await as(t, token).post('/api/plans', { name: 'Measured', isPublic: false, isActive: true, limits }).expect(201)).body
      .id as string;
    await as(t, token).put(`/api/agency/businesses/${bakery.id}/plan`, { planId }).expect(200);
    await as(t, token, bakery.id)
      .post('/api/ai/org-usage/events', { events: [usageEvent({ costUsd: 2.5, createdAt: new Date(Date.now() - 60_000).toISOString() })] })
      .expect(200);

    const { page } = await t.context.open({ bypassCSP: true, viewport: PHONE });
    await serveLogo(page);
    await signIn(page, t.context.origin, bakery.ownerEmail);
    await page.locator(`#plan-limits[data-loaded="true"][data-plan-id="${planId}"]`).waitFor();
    t.regex(await page.locator('#plan-limits-name').innerText(), /^Plan: Measured/);
    const row = (key: string) => page.locator(`#plan-limits-table tr[data-limit="${key}"] td`).allInnerTexts();
    t.deepEqual(await row('agents'), ['1', '2', '50%']);
    t.deepEqual(await row('users'), ['1', '3', '33%']);
    t.deepEqual(await row('messages'), ['0', '100', '0%']);
    t.deepEqual(await row('documents'), ['0 MB', '5 MB', '0%']);
    t.deepEqual(await row('usage'), ['$2.50', '$10.00', '25%']);
    t.is(await overflowOf(page), 0, 'the usage page at phone width: no sideways scrolling');
    t.deepEqual(await seriousViolations(page), [], 'the usage page with the plan: axe');
    await screenshot(page, 'console-plan-limits-phone');
    await page.context().close();

    const agency = await t.context.open({ bypassCSP: true });
    await serveLogo(agency.page);
    await signIn(agency.page, t.context.origin, USERS.owner.email);
    await agency.page.locator('#plan-limits[data-loaded="true"]').waitFor({ state: 'attached' });
    t.true(await agency.page.locator('#plan-limits').isHidden(), 'an agency is on no plan');
    await agency.page.context().close();
  },
);
