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

/** The x-org-id of every API request the page makes from now on. */
function watchActing(page: Page): Map<string, string | undefined> {
  const seen = new Map<string, string | undefined>();
  page.on('request', (request) => {
    const url = new URL(request.url());
    if (url.pathname.startsWith('/api/ai/') || url.pathname.startsWith('/api/organization/my'))
      seen.set(`${request.method()} ${url.pathname}`, request.headers()['x-org-id']);
  });
  return seen;
}

test.serial(
  "an agency user switches to a client's workspace: that client's agents and approvals only, every page saying where it acts",
  async (t) => {
    const { page } = await t.context.open({ bypassCSP: true });
    await signIn(page, t.context.origin, USERS.owner.email);
    await actingLine(page).filter({ hasText: 'Working in Demo Agency, your agency.' }).waitFor();
    const switcher = page.getByLabel('Workspace');
    t.deepEqual(await switcher.locator('option').allInnerTexts(), [
      'Demo Agency (agency)',
      'Bakery (client)',
      'Demo Bakery (client)',
      'Florist (client)',
    ]);
    await page.goto(`${t.context.origin}/dashboard#/agents`);
    await page.locator('#agent-list li').first().waitFor();
    t.true((await page.locator('#agent-list').innerText()).includes(AGENTS.support.name));
    t.false((await page.locator('#agent-list').innerText()).includes('Bakery Helper'));

    const requests = watchActing(page);
    await switcher.selectOption({ label: 'Bakery (client)' });
    await actingLine(page).filter({ hasText: 'Working in Bakery, a client workspace of Demo Agency.' }).waitFor();
    await page.locator('#agent-list li', { hasText: 'Bakery Helper' }).waitFor();
    const listed = await page.locator('#agent-list').innerText();
    t.false(listed.includes(AGENTS.support.name), "the agency's own agents are not the client's");
    t.false(listed.includes('Florist Helper'));
    t.is(await page.locator('#agent-list > li').count(), 1);
    t.is(await page.locator('#nav-clients').isVisible(), false, 'Clients belongs to the agency, not to a client');

    await page.getByRole('link', { name: /^Approvals/ }).click();
    await page.locator('#approval-list[data-loaded="true"]').waitFor();
    const approvals = page.locator('#approval-list li.approval');
    t.is(await approvals.count(), 1);
    t.regex(await approvals.first().innerText(), /Bakery Helper/);
    await page.locator('#approvals-count[data-count="1"]').waitFor();
    t.deepEqual(await seriousViolations(page), [], 'the approvals page acting in a client: axe');
    await screenshot(page, 'console-workspace-bakery-approvals');
    for (const [request, header] of requests) t.is(header, bakery.id, `${request} acts in Bakery`);

    // A reload stays in the chosen workspace; back to the agency lists the agency's again.
    await page.reload();
    await actingLine(page).filter({ hasText: 'Working in Bakery' }).waitFor();
    t.is(await switcher.inputValue(), bakery.id);
    await switcher.selectOption({ label: 'Demo Agency (agency)' });
    await actingLine(page).filter({ hasText: 'your agency' }).waitFor();
    await page.locator('#approval-list[data-loaded="true"] li.approval', { hasText: AGENTS.support.name }).waitFor();
    t.is(await page.locator('#approval-list li.approval').count(), 1);
    await page.context().close();
  },
);

test.serial('the Clients page lists the businesses, makes a workspace with its owner invited and copies an agent into one', async (t) => {
  const { page } = await t.context.open({ bypassCSP: true });
  await signIn(page, t.context.origin, USERS.owner.email);
  await page.getByRole('link', { name: 'Clients' }).click();
  await page.locator('#client-list[data-loaded="true"]').waitFor();
  const rows = page.locator('#client-rows tr');
  t.deepEqual((await rows.locator('th').allInnerTexts()).sort(), ['Bakery', 'Demo Bakery', 'Florist']);
  const bakeryRow = page.locator(`tr[data-business-id="${bakery.id}"]`);
  t.is(await bakeryRow.locator('.plan-name').innerText(), 'Starter', "registered on the agency's oldest active public plan");
  t.deepEqual((await bakeryRow.locator('td.number').allInnerTexts()).slice(0, 2), ['1', '1'], 'one user, one agent');
  t.deepEqual(await seriousViolations(page), [], 'Clients: axe');

  await page.getByLabel('Business name').fill('Candle Shop');
  await page.getByLabel("Owner's name").fill('Cara Candle');
  await page.getByLabel("Owner's email").fill('cara@candles.test');
  await page.getByRole('button', { name: 'Create and invite the owner' }).click();
  await page.locator('#workspace-said', { hasText: 'Candle Shop is ready. The invitation went to cara@candles.test' }).waitFor();
  await page.locator('#client-rows th', { hasText: 'Candle Shop' }).waitFor();
  t.true((await page.getByLabel('Workspace').locator('option').allInnerTexts()).includes('Candle Shop (client)'));
  t.regex(await invitationLink(t, 'cara@candles.test', t.context.origin), /#\/accept-invitation\?/);

  await page.getByLabel("The agency's agent").selectOption({ label: AGENTS.support.name });
  await page.getByLabel('Into the workspace').selectOption({ label: 'Florist' });
  await page.getByRole('button', { name: 'Copy the agent' }).click();
  await page.locator('#copy-said', { hasText: `${AGENTS.support.name} was copied into Florist.` }).waitFor();
  await screenshot(page, 'console-clients');

  await page.getByRole('button', { name: 'Work in Florist' }).click();
  await actingLine(page).filter({ hasText: 'Working in Florist' }).waitFor();
  await page.locator('#agent-list li', { hasText: AGENTS.support.name }).waitFor();
  t.is(await page.locator('#agent-list > li').count(), 2, "Florist's own agent and the copy");
  await page.context().close();
});

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
