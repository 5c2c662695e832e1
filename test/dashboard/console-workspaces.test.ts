import anyTest from 'ava';
import type { Page } from 'playwright-core';
import { AGENTS, DEMO_PASSWORD, ORGANIZATIONS, USERS } from '../../seeds/demo-fixtures.ts';
import { testConfig } from '../helpers/app.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, withDashboard } from '../helpers/dashboard.ts';
import { overflowOf, PHONE } from './staff-support.ts';
import { as, clientBusiness, invitationLink, pendingApproval, type ClientBusiness } from './workspace-support.ts';

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

test.serial(
  'a business owner invites a member, who accepts in the console and answers an approval of the business, at phone width',
  async (t) => {
    const owner = await t.context.open({ bypassCSP: true, viewport: PHONE });
    await signIn(owner.page, t.context.origin, bakery.ownerEmail);
    await actingLine(owner.page).filter({ hasText: 'Working in Bakery.' }).waitFor();
    await owner.page.getByRole('link', { name: 'Members' }).click();
    await owner.page.locator('#member-list[data-loaded="true"]').waitFor();
    t.is(await owner.page.locator('#member-rows tr').count(), 1);
    await owner.page.getByLabel('Email to invite').fill('baker@bakery.test');
    await owner.page.getByLabel('Role').selectOption('member');
    await owner.page.getByRole('button', { name: 'Send invitation' }).click();
    await owner.page.locator('#invite-sent', { hasText: 'Invitation sent to baker@bakery.test as member' }).waitFor();
    t.is(await overflowOf(owner.page), 0, 'Members at phone width: no sideways scrolling');
    t.deepEqual(await seriousViolations(owner.page), [], 'Members: axe');
    await screenshot(owner.page, 'console-members-phone');

    const member = await t.context.open({ bypassCSP: true, viewport: PHONE });
    await member.page.goto(await invitationLink(t, 'baker@bakery.test', t.context.origin));
    await member.page.getByLabel('Your name').fill('Bea Baker');
    await member.page.getByLabel('Choose a password').fill(DEMO_PASSWORD);
    t.deepEqual(await seriousViolations(member.page), [], 'the accept page: axe');
    await member.page.getByRole('button', { name: 'Accept and sign in' }).click();
    // A business member may not read the organization (no `read` on `organization`): the line cannot name it.
    await actingLine(member.page).filter({ hasText: 'Working in your organization.' }).waitFor();
    await member.page.getByRole('link', { name: /^Approvals/ }).click();
    const card = member.page.locator('#approval-list li.approval[data-status="pending"]');
    await card.first().waitFor();
    t.is(await card.count(), 1);
    t.regex(await card.innerText(), /Bakery Helper/);
    await card.getByRole('button', { name: /^Approve/ }).click();
    await card.locator('.result[data-outcome="approved"]').waitFor();
    t.is(await overflowOf(member.page), 0, 'Approvals at phone width: no sideways scrolling');
    await screenshot(member.page, 'console-member-approved-phone');

    const answered = await as(t, await t.context.t.login(bakery.ownerEmail))
      .get('/api/ai/approvals?status=answered')
      .expect(200);
    t.is(answered.body.approvals.length, 1);
    await owner.page.reload();
    await owner.page.locator('#member-rows tr', { hasText: 'baker@bakery.test' }).waitFor();
    await owner.page.context().close();
    await member.page.context().close();
  },
);
