import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import anyTest from 'ava';
import { AGENTS, ORGANIZATIONS } from '../../seeds/demo-fixtures.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard } from '../helpers/dashboard.ts';
import { oauthTestConfig } from '../mcp-oauth/context.ts';
import { insertOAuthServer, startFakeOAuth } from '../mcp-oauth/fake-servers.ts';

const test = withDashboard(anyTest, { app: { config: oauthTestConfig() } });

// The whole round trip in the browser: Connect -> the authorization server -> the API's browser
// landing -> back in the console. If the landing's hand-off changes, only this file and
// dashboard/src/oauth-landing.ts follow.
test.serial('Connect sends the browser through the authorization server and back, and the server is connected', async (t) => {
  const fake = await startFakeOAuth();
  t.teardown(() => fake.close());
  const serverId = await insertOAuthServer(t.context.t.db.pool, {
    organizationId: ORGANIZATIONS.demoAgency.id,
    agentId: AGENTS.support.id,
    url: fake.resourceUrl,
  });
  // An app whose public address and front-end are the address it listens on (known only once listening).
  const http = createServer();
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  t.teardown(
    () =>
      new Promise<void>((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  const origin = `http://127.0.0.1:${(http.address() as AddressInfo).port}`;
  const app = t.context.t.rebuild({ config: { ...oauthTestConfig(), publicBaseUrl: origin, frontendUrl: `${origin}/dashboard` } });
  http.on('request', app.callback());

  const { page, requested } = await t.context.open();
  await signIn(page, origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${origin}/dashboard#/agents/${AGENTS.support.id}/mcp-servers`);
  const card = page.locator(`#server-${serverId}`);
  await card.waitFor();
  t.is(await card.getAttribute('data-status'), 'needs_authorization');
  await card.getByRole('button', { name: 'Connect Fake MCP' }).click();

  await page.waitForURL(`${origin}/dashboard#/agents/${AGENTS.support.id}/mcp-servers`);
  await page.locator('#notice', { hasText: 'The MCP server is connected.' }).waitFor();
  t.is(fake.authorizeRequests.length, 1, 'the browser went to the authorization server');
  t.is(fake.tokenRequests.length, 1, 'the API exchanged the code');
  t.true(
    requested.some((url) => url.startsWith(`${origin}/api/ai/mcp-oauth/callback?`)),
    'the browser landed on the API',
  );
  const connected = page.locator(`#server-${serverId}`);
  await connected.waitFor();
  t.not(await connected.getAttribute('data-status'), 'needs_authorization');
  t.true(await connected.getByRole('button', { name: 'Connect Fake MCP' }).isHidden());
  t.is(new URL(page.url()).search, '', 'the landing’s query is removed from the address');
  await screenshot(page, 'console-mcp-oauth-connected');
  await page.context().close();
});

test.serial('a landing with a hand-off this browser did not start completes nothing and says so', async (t) => {
  const serverId = await insertOAuthServer(t.context.t.db.pool, {
    organizationId: ORGANIZATIONS.demoAgency.id,
    agentId: AGENTS.support.id,
    url: 'https://mcp.example.com/mcp',
  });
  const { page, requested } = await t.context.open();
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  // As if a victim followed an attacker's authorization link and the API's landing sent them here.
  const landing = new URLSearchParams({ mcpOAuth: 'handoff', handoff: 'h'.repeat(43), agentId: AGENTS.support.id, serverId });
  await page.goto(`${t.context.origin}/dashboard?${landing.toString()}`);
  await page.locator('#notice', { hasText: 'This connection was not started in this browser' }).waitFor();
  t.false(
    requested.some((url) => url.includes('/api/ai/mcp-oauth/complete')),
    'no completion was attempted',
  );
  t.is(new URL(page.url()).search, '', 'the hand-off is removed from the address');
  await page.context().close();
});
