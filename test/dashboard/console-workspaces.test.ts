import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { AGENTS, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig } from '../helpers/app.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, withDashboard } from '../helpers/dashboard.ts';
import { overflowOf, PHONE } from './staff-support.ts';
import { clientBusiness, pendingApproval, type ClientBusiness } from './workspace-support.ts';

// Development without a provider: the demo model answers, and asks for list_documents when told to use it.
const test = withDashboard(anyTest, { app: { config: testConfig({ nodeEnv: 'development' }) } });

let bakery: ClientBusiness;
let florist: ClientBusiness;

test.serial.before(async (t) => {
  const agency = await t.context.t.login(USERS.owner.email);
  bakery = await clientBusiness(t, 'Bakery', agency);
  florist = await clientBusiness(t, 'Florist', agency);
  // A pending approval in the agency itself and in each business: the inbox shows the acting one's only.
  await pendingApproval(t, agency, ORGANIZATIONS.demoAgency.id, AGENTS.support.id);
  await pendingApproval(t, agency, bakery.id, bakery.agentId);
  await pendingApproval(t, agency, florist.id, florist.agentId);
});

const actingLine = (page: Page) => page.locator('#acting');

test.serial(
  'a business owner sees only their own workspace: no switcher, no Clients, its agents and approvals, at phone width',
  async (t) => {
    const { page } = await t.context.open({ bypassCSP: true, viewport: PHONE });
    await signIn(page, t.context.origin, bakery.ownerEmail);
    await actingLine(page).filter({ hasText: 'Working in Bakery.' }).waitFor();
    t.false(await page.locator('#workspace-bar').isVisible(), 'no switcher for a business');
    t.false(await page.locator('#nav-clients').isVisible(), 'no Clients page for a business');
    await page.goto(`${t.context.origin}/dashboard#/agents`);
    await page.locator('#agent-list li', { hasText: 'Bakery Helper' }).waitFor();
    t.is(await page.locator('#agent-list > li').count(), 1);
    await page.goto(`${t.context.origin}/dashboard#/approvals`);
    await page.locator('#approval-list[data-loaded="true"]').waitFor();
    t.is(await page.locator('#approval-list li.approval').count(), 1);
    t.regex(await page.locator('#approval-list li.approval').innerText(), /Bakery Helper/);
    t.is(await overflowOf(page), 0, 'no sideways scrolling at phone width');
    t.deepEqual(await seriousViolations(page), [], 'axe');
    await screenshot(page, 'console-business-owner-phone');
    await page.context().close();
  },
);
