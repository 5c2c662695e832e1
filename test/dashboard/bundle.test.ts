import { randomBytes } from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import test from 'ava';
import { buildDashboard, type DashboardAsset, type DashboardBuild } from '../../dashboard/build.ts';

const outDir = join(tmpdir(), `dashboard-bundle-${randomBytes(6).toString('hex')}`);
let built: DashboardBuild;
test.before(async () => {
  built = await buildDashboard(outDir);
});
test.after.always(() => rm(outDir, { recursive: true, force: true }));

/** The scripts a page loads: the shell (main and its static imports), then the page's chunk and its static imports. */
function closure(start: string[]): Set<string> {
  const byName = new Map(built.assets.map((asset) => [asset.name, asset]));
  const seen = new Set<string>();
  const visit = (name: string) => {
    if (seen.has(name)) return;
    seen.add(name);
    for (const imported of byName.get(name)?.imports ?? []) if (!imported.dynamic) visit(imported.name);
  };
  for (const name of start) visit(name);
  return seen;
}

const pageChunk = (page: string): DashboardAsset => {
  const found = built.assets.find((asset) => asset.entryPoint?.endsWith(`src/pages/${page}.ts`));
  if (!found) throw new Error(`no chunk for ${page}`);
  return found;
};
const packagesOf = (names: Set<string>) =>
  new Set(built.assets.filter((asset) => names.has(asset.name)).flatMap((asset) => asset.packages));

test('the console’s JavaScript is under 200 KB gzipped in total', async (t) => {
  const scripts = built.assets.filter((asset) => asset.name.endsWith('.js'));
  let total = 0;
  const rows: string[] = [];
  for (const script of scripts) {
    const gzipped = gzipSync(await readFile(join(outDir, 'assets', script.name)), { level: 9 }).length;
    total += gzipped;
    rows.push(
      `${script.name.padEnd(24)} ${String(script.bytes).padStart(8)} B ${String(gzipped).padStart(7)} B gz  ${script.entryPoint ?? ''}`,
    );
  }
  t.log(`\n${rows.join('\n')}\ntotal ${total} B gzipped`);
  t.true(total < 200 * 1024, `${total} B gzipped`);
});

test('each page loads only what it uses: the charts only on the usage page, the AI SDK only in the chat', (t) => {
  const shell = closure([built.script]);
  t.false(packagesOf(shell).has('uplot'), 'the shell does not carry the charts');
  t.false(packagesOf(shell).has('ai'), 'nor the AI SDK');
  const usage = packagesOf(closure([...shell, pageChunk('usage').name]));
  t.true(usage.has('uplot'));
  t.false(usage.has('ai'));
  const chat = packagesOf(closure([...shell, pageChunk('chat').name]));
  t.true(chat.has('ai'));
  t.false(chat.has('uplot'));
  for (const page of ['agents', 'tools', 'mcp-servers', 'settings']) {
    const packages = packagesOf(closure([...shell, pageChunk(page).name]));
    t.false(packages.has('uplot') || packages.has('ai'), `${page} loads neither the charts nor the AI SDK`);
  }
});
