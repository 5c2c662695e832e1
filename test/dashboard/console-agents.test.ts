import anyTest, { type ExecutionContext } from 'ava';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { screenshot } from '../helpers/browser.ts';
import { testConfig } from '../helpers/app.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';
import { startMcpPeer, type Peer } from '../mcp-client/mcp-peers.ts';

// Development mode: the service may call the MCP peer on 127.0.0.1 (the URL policy allows loopback there).
const test = withDashboard(anyTest, { app: { config: testConfig({ nodeEnv: 'development' }) } });

type T = ExecutionContext<DashboardContext>;
const agent = AGENTS.support.id;
const API_KEY = 'peer-key-7d1c';

async function bearer(t: T, email = 'owner@demo.test') {
  return `Bearer ${await t.context.t.login(email)}`;
}

async function toolSet(t: T) {
  const response = await t.context.t
    .http()
    .get(`/api/ai/agents/${agent}/tools`)
    .set('authorization', await bearer(t))
    .expect(200);
  return (response.body as { tools: { toolName: string; providerKey: string; permissionStatus: string }[] }).tools;
}

/** A catalog entry (created by the platform admin) whose API-key variant is a real MCP server that wants `X-Api-Key`. */
async function catalogEntry(t: T, peer: Peer, name: string): Promise<string> {
  const response = await t.context.t
    .http()
    .post('/api/available-mcps')
    .set('authorization', await bearer(t, 'admin@platform.test'))
    .send({
      name,
      description: 'Documentation search',
      tags: ['docs'],
      variants: [
        { type: 'free', url: peer.url, transportType: 'http', credentialSchema: { type: 'free', fields: [] } },
        {
          type: 'apikey',
          url: peer.url,
          transportType: 'http',
          credentialSchema: {
            type: 'apikey',
            fields: [{ key: 'X-Api-Key', label: 'API key', type: 'header', required: true, helpText: 'From the docs site settings' }],
          },
        },
      ],
    })
    .expect(201);
  return (response.body as { id: string }).id;
}

async function open(t: T, hash: string) {
  const opened = await t.context.open();
  await signIn(opened.page, t.context.origin, 'owner@demo.test');
  await waitForReports(opened.page);
  await opened.page.goto(`${t.context.origin}/dashboard${hash}`);
  return opened;
}

test.serial(
  'an owner adds a catalog server with its API key, sees its tools, flips permissions in one save the API then answers',
  async (t) => {
    const peer = await startMcpPeer({ requiredHeaders: { 'X-Api-Key': API_KEY } });
    t.teardown(() => peer.close());
    const entryId = await catalogEntry(t, peer, 'Docs search');

    const { page } = await open(t, `#/agents/${agent}/mcp-servers`);
    await page.getByLabel('Catalog entry').selectOption({ label: 'Docs search' });
    t.is(await page.getByLabel('Name shown for this agent').inputValue(), 'Docs search');
    await page.getByLabel('API key', { exact: true }).check();
    const keyField = page.getByLabel('API key', { exact: false }).and(page.locator('input[data-key="X-Api-Key"]'));
    t.is(await keyField.getAttribute('type'), 'password', 'a header credential is typed like a password');
    t.is(await page.locator('#credential-X-Api-Key-help').textContent(), 'From the docs site settings');
    await page.getByRole('button', { name: 'Add server' }).click();
    t.regex((await page.locator('#add-status').textContent()) ?? '', /^$|Fill in: API key\./, 'a required field left empty is named');
    await keyField.fill(API_KEY);
    await page.getByRole('button', { name: 'Add server' }).click();
    const card = page.locator('#server-list li.server');
    await card.getByRole('heading', { name: 'Docs search' }).waitFor();

    const listed = await t.context.t
      .http()
      .get(`/api/ai/agents/${agent}/mcp-servers`)
      .set('authorization', await bearer(t))
      .expect(200);
    const [server] = listed.body as {
      id: string;
      availableMcpId: string;
      variantType: string;
      hasCredentials: boolean;
      authType: string;
    }[];
    t.like(server, { availableMcpId: entryId, variantType: 'apikey', hasCredentials: true, authType: 'static_headers' });
    await screenshot(page, 'console-mcp-servers');

    await page.getByRole('link', { name: 'Tool permissions' }).click();
    const section = page.locator(`#server-${server!.id}`);
    await section.locator('fieldset[data-tool="create_issue"]').waitFor();
    // Listing the tools reached the server with the key, so it now reads connected.
    await section.locator('.server-status[data-status="connected"]').waitFor();
    t.regex((await section.locator('.server-status').textContent()) ?? '', /Status: connected/);
    await section.locator('fieldset[data-tool="create_issue"]').getByLabel('Needs approval').check();
    await section.locator('fieldset[data-tool="search_docs"]').getByLabel('Always allow').check();
    await page.locator('#built-in fieldset[data-tool="fetch_url"]').getByLabel('Blocked').check();
    // A built-in tool this deployment does not run says so, and why.
    t.regex(
      (await page.locator('#built-in fieldset[data-tool="list_events"] .tool-unavailable').textContent()) ?? '',
      /Unavailable here: this deployment registered no executor for list_events/,
    );
    t.is(await page.locator('#built-in fieldset[data-tool="fetch_url"] .tool-unavailable').count(), 0);
    await page.getByRole('button', { name: 'Save permissions' }).click();
    await page.locator('#tools-status', { hasText: 'Saved' }).waitFor();
    const saved = await toolSet(t);
    const catalog = await t.context.t
      .http()
      .get('/api/ai/tools/catalog')
      .set('authorization', await bearer(t))
      .expect(200);
    const fetchUrl = (catalog.body as { toolName: string; providerKey: string }[]).find((tool) => tool.toolName === 'fetch_url')!;
    t.deepEqual(
      saved.map((tool) => `${tool.providerKey} ${tool.toolName} ${tool.permissionStatus}`).sort(),
      [
        `mcp:${server!.id} create_issue needs_approval`,
        `mcp:${server!.id} search_docs always_allow`,
        `${fetchUrl.providerKey} fetch_url blocked`,
      ].sort(),
    );
    await screenshot(page, 'console-tools');

    // The server is removed behind the page's back: saving its tools again is refused at their rows.
    await t.context.t
      .http()
      .delete(`/api/ai/agents/${agent}/mcp-servers/${server!.id}`)
      .set('authorization', await bearer(t))
      .expect(204);
    const before = await toolSet(t);
    await section.locator('fieldset[data-tool="ping"]').getByLabel('Blocked').check();
    await page.getByRole('button', { name: 'Save permissions' }).click();
    const rowError = section.locator('fieldset[data-tool="ping"] .row-error');
    await rowError.waitFor();
    t.regex((await rowError.textContent()) ?? '', /providerKey/);
    t.is(await section.locator('fieldset[data-tool="ping"]').getAttribute('aria-invalid'), 'true');
    t.true(await page.locator('#built-in fieldset[data-tool="fetch_url"] .row-error').isHidden(), 'valid rows carry no error');
    t.is(await page.locator('#tools-status').textContent(), 'Not saved: see the marked tools.');
    t.deepEqual(await toolSet(t), before, 'nothing changed');
    await screenshot(page, 'console-tools-400');
    await page.context().close();
  },
);

test.serial('the caller’s approve-always overrides are listed and one is removed from the page', async (t) => {
  const auth = await bearer(t);
  for (const toolName of ['send_email', 'create_event']) {
    await t.context.t.http().post(`/api/ai/agents/${agent}/tool-overrides`).set('authorization', auth).send({ toolName }).expect(200);
  }
  const { page } = await open(t, `#/agents/${agent}/tools`);
  const items = page.locator('#overrides li');
  await items.first().waitFor();
  t.deepEqual(await items.evaluateAll((nodes) => nodes.map((node) => node.getAttribute('data-tool'))), ['send_email', 'create_event']);
  await page.getByRole('button', { name: 'Remove the override of send_email' }).click();
  await page.locator('#overrides li[data-tool="send_email"]').waitFor({ state: 'detached' });
  const left = await t.context.t.http().get(`/api/ai/agents/${agent}/tool-overrides`).set('authorization', auth).expect(200);
  t.deepEqual(
    (left.body as { overrides: { toolName: string }[] }).overrides.map((override) => override.toolName),
    ['create_event'],
  );
  await page.context().close();
});

test.serial('a server is renamed and removed from its card, and its status and last check are shown', async (t) => {
  const peer = await startMcpPeer();
  t.teardown(() => peer.close());
  const auth = await bearer(t);
  const added = await t.context.t
    .http()
    .post(`/api/ai/agents/${agent}/mcp-servers`)
    .set('authorization', auth)
    .send({ name: 'Scratch peer', url: peer.url, transportType: 'http' })
    .expect(201);
  const serverId = (added.body as { id: string }).id;
  const { page } = await open(t, `#/agents/${agent}/mcp-servers`);
  const card = page.locator(`#server-${serverId}`);
  await card.waitFor();
  t.is(await card.getAttribute('data-status'), 'unknown');
  t.regex((await card.locator('dl').textContent()) ?? '', /Not checked yet.*Last check\s*never/s);

  await card.getByRole('textbox', { name: 'Name', exact: true }).fill('Renamed peer');
  await card.getByRole('button', { name: 'Rename' }).click();
  await card.getByRole('heading', { name: 'Renamed peer' }).waitFor();
  const detail = await t.context.t.http().get(`/api/ai/agents/${agent}/mcp-servers/${serverId}`).set('authorization', auth).expect(200);
  t.is((detail.body as { name: string }).name, 'Renamed peer');

  await card.getByRole('button', { name: 'Remove Renamed peer' }).click();
  await card.waitFor({ state: 'detached' });
  await t.context.t.http().get(`/api/ai/agents/${agent}/mcp-servers/${serverId}`).set('authorization', auth).expect(404);
  await page.context().close();
});
