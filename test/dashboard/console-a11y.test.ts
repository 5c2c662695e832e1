import anyTest, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);
type T = ExecutionContext<DashboardContext>;

const agent = AGENTS.support.id;

/** Every page of the console, with what shows it is ready. */
const PAGES: { name: string; hash: string; ready: string }[] = [
  { name: 'usage', hash: '#/usage', ready: '#dashboard[data-loaded="true"]' },
  { name: 'agents', hash: '#/agents', ready: '#agent-create-form button[type="submit"]' },
  { name: 'agent', hash: `#/agents/${agent}`, ready: '#agent-archive' },
  { name: 'tools', hash: `#/agents/${agent}/tools`, ready: '#tool-form button[type="submit"]' },
  { name: 'mcp-servers', hash: `#/agents/${agent}/mcp-servers`, ready: '#add-server .note, #add-server-form' },
  { name: 'chat', hash: `#/agents/${agent}/chat`, ready: '#composer' },
  { name: 'documents', hash: `#/agents/${agent}/documents`, ready: '#document-list[data-count]' },
  { name: 'versions', hash: `#/agents/${agent}/versions`, ready: '#version-list' },
  { name: 'tests', hash: `#/agents/${agent}/tests`, ready: '#case-count:not(:empty)' },
  { name: 'approvals', hash: '#/approvals', ready: '#approval-list[data-loaded="true"]' },
  { name: 'settings', hash: '#/settings', ready: '#budget-state:not(:empty)' },
];

/** Interactive elements no Tab press reaches (one radio per group counts for its group). */
async function unreachableByTab(page: Page): Promise<string[]> {
  await page.locator('body').evaluate((body) => (body as unknown as { focus(): void }).focus());
  const reached = new Set<string>();
  for (let press = 0; press < 200; press++) {
    await page.keyboard.press('Tab');
    const key = await page.evaluate(() => {
      const active = (
        globalThis as unknown as {
          document: { activeElement: { id: string; getAttribute(n: string): string | null; tagName: string } | null };
        }
      ).document.activeElement;
      if (!active) return '';
      return active.getAttribute('type') === 'radio'
        ? `radio:${active.getAttribute('name')}`
        : (active.getAttribute('data-a11y-key') ?? '');
    });
    if (key === '' && press > 0 && reached.size > 0) continue;
    if (reached.has(key) && key !== '') break;
    reached.add(key);
  }
  return page.evaluate(
    (seen) => {
      const doc = (
        globalThis as unknown as {
          document: {
            querySelectorAll(
              s: string,
            ): ArrayLike<{ getAttribute(n: string): string | null; checkVisibility(): boolean; disabled?: boolean; outerHTML: string }>;
          };
        }
      ).document;
      return Array.from(doc.querySelectorAll('a[href], button, input, select, textarea'))
        .filter((node) => node.checkVisibility() && !node.disabled)
        .filter(
          (node) =>
            !seen.includes(
              node.getAttribute('type') === 'radio' ? `radio:${node.getAttribute('name')}` : (node.getAttribute('data-a11y-key') ?? ''),
            ),
        )
        .map((node) => node.outerHTML.slice(0, 120));
    },
    [...reached],
  );
}

/** Gives every interactive element a key, so the Tab walk can name what it reached. */
const labelInteractive = (page: Page) =>
  page.evaluate(() => {
    const doc = (
      globalThis as unknown as { document: { querySelectorAll(s: string): ArrayLike<{ setAttribute(n: string, v: string): void }> } }
    ).document;
    Array.from(doc.querySelectorAll('a[href], button, input, select, textarea')).forEach((node, index) =>
      node.setAttribute('data-a11y-key', `k${index}`),
    );
  });

async function openAt(t: T, width: number, email = 'owner@demo.test') {
  // bypassCSP: axe-core is injected as an inline script, which the page's policy would refuse.
  const { page } = await t.context.open({ viewport: { width, height: 800 }, bypassCSP: true });
  await signIn(page, t.context.origin, email);
  await waitForReports(page);
  return page;
}

test.serial('every page fits a phone’s width without sideways scrolling and has no serious or critical axe violation', async (t) => {
  const page = await openAt(t, 375);
  for (const { name, hash, ready } of PAGES) {
    // A full load each time (a change of hash alone would leave the previous page's elements for a moment).
    await page.goto('about:blank');
    await page.goto(`${t.context.origin}/dashboard${hash}`);
    await page.locator(ready).first().waitFor({ state: 'attached', timeout: 20_000 });
    const overflow = await page.evaluate(() => {
      const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
        .documentElement;
      return root.scrollWidth - root.clientWidth;
    });
    t.true(overflow <= 0, `${name}: ${overflow}px wider than the phone`);
    t.deepEqual(await seriousViolations(page), [], `${name}: axe`);
    await screenshot(page, `console-phone-${name}`);
  }
  // The sign-in form too.
  await page.getByRole('button', { name: 'Sign out' }).click();
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  t.deepEqual(await seriousViolations(page), [], 'sign-in: axe');
  await page.context().close();
});

test.serial('every control of every page can be reached with the Tab key', async (t) => {
  const page = await openAt(t, 1280);
  for (const { name, hash, ready } of PAGES) {
    // A full load each time (a change of hash alone would leave the previous page's elements for a moment).
    await page.goto('about:blank');
    await page.goto(`${t.context.origin}/dashboard${hash}`);
    await page.locator(ready).first().waitFor({ state: 'attached', timeout: 20_000 });
    await labelInteractive(page);
    t.deepEqual(await unreachableByTab(page), [], `${name}: controls Tab never reaches`);
  }
  await page.context().close();
});

test.serial('a permission is changed and saved with the keyboard alone', async (t) => {
  const page = await openAt(t, 1280);
  await page.goto(`${t.context.origin}/dashboard#/agents/${agent}/tools`);
  const row = page.locator('#built-in fieldset[data-tool="send_email"]');
  await row.waitFor();
  await row.getByLabel('Always allow').focus();
  await page.keyboard.press('ArrowRight'); // radio group: Always allow -> Needs approval
  t.true(await row.getByLabel('Needs approval').isChecked());
  const save = page.getByRole('button', { name: 'Save permissions' });
  await save.focus();
  await page.keyboard.press('Enter');
  await page.locator('#tools-status', { hasText: 'Saved' }).waitFor();
  const tools = await t.context.t
    .http()
    .get(`/api/ai/agents/${agent}/tools`)
    .set('authorization', `Bearer ${await t.context.t.login('owner@demo.test')}`)
    .expect(200);
  t.like(
    (tools.body as { tools: { toolName: string; permissionStatus: string }[] }).tools.find((tool) => tool.toolName === 'send_email'),
    { permissionStatus: 'needs_approval' },
  );
  await page.context().close();
});
