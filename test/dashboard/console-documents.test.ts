import anyTest, { type ExecutionContext } from 'ava';
import type { Page } from 'playwright-core';
import { apiLimits } from '../../dashboard/src/api-types.generated.ts';
import { AGENTS } from '../../seeds/demo-fixtures.ts';
import { seriousViolations } from '../helpers/axe.ts';
import { screenshot } from '../helpers/browser.ts';
import { signIn, waitForReports, withDashboard, type DashboardContext } from '../helpers/dashboard.ts';

const test = withDashboard(anyTest);
type T = ExecutionContext<DashboardContext>;

const PHONE = { width: 375, height: 800 };
const AGENT = AGENTS.research.id;
const { maxBytes } = apiLimits['POST /ai/agents/:agentId/documents'].upload;

type Doc = { id: string; name: string; bytes: number; chunkCount: number };

async function documentsOfApi(t: T): Promise<Doc[]> {
  const token = await t.context.t.login('owner@demo.test');
  const response = await t.context.t.http().get(`/api/ai/agents/${AGENT}/documents`).set('authorization', `Bearer ${token}`).expect(200);
  return (response.body as { documents: Doc[] }).documents;
}

async function open(t: T, hash: string, viewport = { width: 1280, height: 900 }) {
  const { page, requested } = await t.context.open({ viewport, bypassCSP: true });
  await signIn(page, t.context.origin, 'owner@demo.test');
  await waitForReports(page);
  await page.goto(`${t.context.origin}/dashboard${hash}`);
  await page.locator('#document-list[data-count]').waitFor();
  return { page, requested };
}

async function overflowOf(page: Page): Promise<number> {
  return page.evaluate(() => {
    const root = (globalThis as unknown as { document: { documentElement: { scrollWidth: number; clientWidth: number } } }).document
      .documentElement;
    return root.scrollWidth - root.clientWidth;
  });
}

const MARKDOWN = '# Returns\n\nItems may be returned within 30 days.\n\n# Shipping\n\nWe ship to 40 countries.\n';

test.serial('a file is uploaded with its progress, then listed with the size and passages the API answers', async (t) => {
  const { page } = await open(t, `#/agents/${AGENT}/documents`);
  t.is(await page.getByRole('heading', { level: 2, name: 'Documents of Research Agent' }).count(), 1);
  t.is(await page.getByLabel('File').getAttribute('accept'), 'text/plain,text/markdown,text/html,application/pdf');
  t.regex(await page.locator('#document-file-help').innerText(), /at most 10 MB/);

  // Every value the progress bar showed, and whether it was shown then.
  await page.locator('#document-progress').evaluate((bar) => {
    const seen: string[] = [];
    (globalThis as unknown as { progressSeen: string[] }).progressSeen = seen;
    const progress = bar as unknown as { value: number; hidden: boolean };
    type Observer = { observe(node: unknown, options: { attributes: boolean }): void };
    const { MutationObserver } = globalThis as unknown as { MutationObserver: new (callback: () => void) => Observer };
    new MutationObserver(() => seen.push(`${progress.value}:${progress.hidden ? 'hidden' : 'shown'}`)).observe(bar, { attributes: true });
  });
  // Big enough (with passages to index) that the upload takes more than one progress event.
  const body = MARKDOWN + '\n'.concat(...Array.from({ length: 3_000 }, (_, i) => `# Part ${i}\n\nSection ${i} of the handbook.\n\n`));
  await page.getByLabel('File').setInputFiles({ name: 'returns.md', mimeType: 'text/markdown', buffer: Buffer.from(body) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.locator('#document-upload-status', { hasText: 'returns.md was added' }).waitFor();
  t.true(await page.locator('#document-progress').isHidden());
  const seen = await page.evaluate(() => (globalThis as unknown as { progressSeen: string[] }).progressSeen);
  t.true(seen.includes('100:shown'), `the bar reached 100% while shown: ${seen.join(' ')}`);
  const added = (await documentsOfApi(t)).find((doc) => doc.name === 'returns.md')!;
  t.is(added.bytes, Buffer.byteLength(body));
  const row = page.locator(`#document-list li[data-document-id="${added.id}"]`);
  t.is(await row.getAttribute('data-bytes'), String(added.bytes));
  t.is(await row.getAttribute('data-chunks'), String(added.chunkCount));
  t.true(
    (await row.innerText()).includes(`${(added.bytes / 1024).toFixed(1)} KB, ${added.chunkCount.toLocaleString('en-US')} passages`),
    'size and passages in words',
  );
  await screenshot(page, 'console-documents');
  t.is(await page.getByLabel('File').inputValue(), '', 'the form is emptied for the next file');
  await page.context().close();
});

test.serial('a file larger than the route takes is refused in the page; a type the server refuses shows its reason', async (t) => {
  const { page } = await open(t, `#/agents/${AGENT}/documents`);
  const posts: string[] = [];
  page.on('request', (request) => {
    if (request.method() === 'POST') posts.push(request.url());
  });
  await page.getByLabel('File').setInputFiles({ name: 'huge.txt', mimeType: 'text/plain', buffer: Buffer.alloc(maxBytes + 1, 97) });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.locator('#document-upload-status', { hasText: 'huge.txt is 10 MB: the largest file taken is 10 MB.' }).waitFor();
  t.deepEqual(posts, [], 'nothing was sent');

  const before = (await documentsOfApi(t)).length;
  const posted = page.waitForResponse((response) => response.request().method() === 'POST' && response.url().endsWith('/documents'));
  await page.getByLabel('File').setInputFiles({ name: 'photo.png', mimeType: 'image/png', buffer: Buffer.from([137, 80, 78, 71]) });
  await page.getByRole('button', { name: 'Upload' }).click();
  t.is((await posted).status(), 400);
  await page.locator('#document-upload-status', { hasText: 'is not supported' }).waitFor();
  t.true(await page.locator('#document-upload-status').evaluate((node) => node.classList.contains('error')));
  t.is((await documentsOfApi(t)).length, before);
  await page.context().close();
});

test.serial('Delete asks first: Cancel keeps the document, Delete removes it from the list and the API', async (t) => {
  const token = await t.context.t.login('owner@demo.test');
  await t.context.t
    .http()
    .post(`/api/ai/agents/${AGENT}/documents`)
    .set('authorization', `Bearer ${token}`)
    .send({ name: 'hours.txt', text: 'Open Monday to Friday.' })
    .expect(201);
  const doc = (await documentsOfApi(t)).find((item) => item.name === 'hours.txt')!;
  const { page } = await open(t, `#/agents/${AGENT}/documents`);
  const remove = page.getByRole('button', { name: 'Delete hours.txt' });
  const dialog = page.getByRole('dialog', { name: 'Delete hours.txt?' });
  await remove.click();
  await dialog.waitFor();
  t.true(
    await dialog
      .getByRole('button', { name: 'Cancel' })
      .evaluate((node) => node === (node.ownerDocument as { activeElement: unknown }).activeElement),
    'the safe choice has the focus',
  );
  t.deepEqual(await seriousViolations(page), [], 'the open dialog: axe');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await dialog.waitFor({ state: 'hidden' });
  t.true((await documentsOfApi(t)).some((item) => item.id === doc.id));

  await remove.click();
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await page.locator('#documents-status', { hasText: 'hours.txt was deleted.' }).waitFor();
  t.is(await page.locator(`#document-list li[data-document-id="${doc.id}"]`).count(), 0);
  t.false((await documentsOfApi(t)).some((item) => item.id === doc.id));
  await page.context().close();
});

test.serial('on a phone the documents page fits the width, passes axe and uploads', async (t) => {
  const { page } = await open(t, `#/agents/${AGENT}/documents`, PHONE);
  t.true((await overflowOf(page)) <= 0, 'the documents page fits a phone');
  t.deepEqual(await seriousViolations(page), [], 'documents page: axe');
  await page.getByLabel('File').setInputFiles({
    name: 'a-document-with-a-rather-long-file-name-that-has-to-wrap-on-a-phone.txt',
    mimeType: 'text/plain',
    buffer: Buffer.from('Phones are welcome.'),
  });
  await page.getByRole('button', { name: 'Upload' }).click();
  await page.locator('#document-upload-status', { hasText: 'was added' }).waitFor();
  t.true((await overflowOf(page)) <= 0, 'a long name wraps');
  t.deepEqual(await seriousViolations(page), [], 'documents page with a document: axe');
  await screenshot(page, 'console-documents-phone');
  await page.context().close();
});
