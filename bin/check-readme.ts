/**
 * `npm run check:readme`: README.md's commands run as a newcomer runs them, on a clean clone of
 * this commit (`git clone` of HEAD: commit first), and what each prints checked against what the
 * README says it prints. Needs PostgreSQL and Redis (for the `npm test` step), Chromium (the widget
 * step) and the npm registry or its cache; takes a few minutes, so it is not part of `npm test`.
 *
 * 1. `npm ci` with the machine's own Node.js (the scripts' `node_modules/.bin` off the PATH): no
 *    `EBADENGINE` warning, and the scripts then run on the pinned Node.js 24.
 * 2. `npm start` on a free port: the start log names the console, the demo sign-in and the docs;
 *    `/` and `/api` lead to the console and the docs.
 * 3. Every later `sh` block of the README, in order, in one bash (`set -euo pipefail`), with
 *    `localhost:3000` and `8080` moved to free ports: each block's output holds what the README says.
 * 4. The README's page with the widget, in Chromium: "How long do refunds take?" is answered with
 *    "5 to 7 business days".
 * 5. `npm test` with one test file.
 * `--keep` leaves the clone in place.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../test/helpers/browser.ts';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const keep = process.argv.includes('--keep');
const started = performance.now();
const failures: string[] = [];

function step(name: string, ok: boolean, detail = ''): void {
  const seconds = ((performance.now() - started) / 1000).toFixed(0).padStart(4);
  process.stdout.write(`${seconds} s  ${ok ? 'ok  ' : 'FAIL'}  ${name}${detail ? `: ${detail}` : ''}\n`);
  if (!ok) failures.push(name);
}

/** The newcomer's environment: no npm script variables, and no `node_modules/.bin` (so `node` is the machine's). */
function newcomerEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env))
    if (!/^npm_|^INIT_CWD$|^NODE$|^NODE_ENV$|^NODE_OPTIONS$/i.test(name)) env[name] = value;
  env.PATH = (process.env.PATH ?? '')
    .split(':')
    .filter((entry) => !entry.includes('node_modules/.bin') && !entry.includes('node-gyp-bin'))
    .join(':');
  return { ...env, ...extra };
}

async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function run(command: string, args: string[], cwd: string, env: NodeJS.ProcessEnv) {
  const result = spawnSync(command, args, { cwd, env, encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 });
  return { status: result.status, output: `${result.stdout}${result.stderr}` };
}

/** The `sh` blocks of the README, in order. */
function shellBlocks(readme: string): string[] {
  return [...readme.matchAll(/^```sh\n([\s\S]*?)^```$/gm)].map((match) => match[1]!);
}

const dirty = run('git', ['status', '--porcelain'], ROOT, process.env).output.trim();
if (dirty) process.stdout.write('note: uncommitted changes are not in the clone (it is of HEAD)\n');
const clone = mkdtempSync(join(tmpdir(), 'readme-check-'));
const children: ChildProcess[] = [];
try {
  step('clean clone of HEAD', run('git', ['clone', '-q', '--no-hardlinks', ROOT, clone], tmpdir(), process.env).status === 0, clone);
  const systemNode = run('node', ['--version'], clone, newcomerEnv()).output.trim();
  const install = run('npm', ['ci', '--no-audit', '--no-fund'], clone, newcomerEnv());
  const warnings = install.output.match(/EBADENGINE/g)?.length ?? 0;
  step(`npm ci on the machine's Node.js ${systemNode}`, install.status === 0 && warnings === 0, `${warnings} EBADENGINE lines`);
  if (install.status !== 0) throw new Error(install.output.slice(-2_000));
  const scriptsNode = run('npm', ['exec', '-c', 'node --version'], clone, newcomerEnv()).output.trim().split('\n').at(-1)!;
  step('the npm scripts run on the pinned Node.js 24', scriptsNode.startsWith('v24.'), scriptsNode);

  const [port, pagePort] = [await freePort(), await freePort()];
  const base = `http://localhost:${port}`;
  const server = spawn('npm', ['start'], { cwd: clone, env: newcomerEnv({ PORT: String(port) }), detached: true });
  children.push(server);
  let log = '';
  const listening = await new Promise<Record<string, unknown> | undefined>((resolve) => {
    const timer = setTimeout(() => resolve(undefined), 300_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString('utf8');
      const line = log.split('\n').find((candidate) => candidate.includes('"msg":"listening"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line) as Record<string, unknown>);
      }
    };
    server.stdout!.on('data', read);
    server.stderr!.on('data', read);
    server.once('exit', () => resolve(undefined));
  });
  step(
    'npm start: the start log names the console, the demo sign-in and the docs',
    listening?.console === `${base}/dashboard` &&
      listening.demoSignIn === 'owner@demo.test / demo-password-1' &&
      listening.docs === `${base}/api/docs`,
    listening ? JSON.stringify({ console: listening.console, demoSignIn: listening.demoSignIn, docs: listening.docs }) : log.slice(-1_000),
  );
  if (!listening) throw new Error('the service did not start');
  for (const [path, to] of [
    ['/', '/dashboard'],
    ['/api', '/api/docs'],
  ] as const) {
    const response = await fetch(`${base}${path}`, { redirect: 'manual' });
    step(`${path} leads to ${to}`, response.status === 302 && response.headers.get('location') === to);
  }

  const blocks = shellBlocks(readFileSync(join(clone, 'README.md'), 'utf8')).slice(1);
  const script = [
    ...blocks.map((block, index) => `printf '\\n=== block ${index}\\n'\n${block}`),
    "printf '\\n=== variables\\n'",
    'echo "AGENT=$AGENT APPROVAL=$APPROVAL KEY=$KEY"',
  ]
    .join('\n')
    .replaceAll('localhost:3000', `localhost:${port}`)
    .replaceAll('8080', String(pagePort));
  const shell = spawn('bash', ['-c', `set -euo pipefail\n${script}`], { cwd: clone, env: newcomerEnv(), detached: true });
  children.push(shell);
  let output = '';
  shell.stdout.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  shell.stderr.on('data', (chunk: Buffer) => (output += chunk.toString('utf8')));
  // The page server it starts in the background keeps the pipes open: the exit of bash is the end.
  const status = await new Promise<number | null>((resolve) => shell.once('exit', resolve));
  step(`the README's ${blocks.length} command blocks run in one bash with set -euo pipefail`, status === 0, `exit ${status}`);
  if (status !== 0) process.stdout.write(`${output.slice(-3_000)}\n`);
  // What the blocks print, in one text: a stream shown through `tee /dev/stderr` interleaves with the next block's output.
  const printed = output.slice(0, output.lastIndexOf('=== variables'));
  const variables = Object.fromEntries(
    [...output.slice(output.lastIndexOf('=== variables')).matchAll(/(\w+)=(\S*)/g)].map((match) => [match[1]!, match[2]!]),
  );
  const deltas = (text: string) =>
    [...text.matchAll(/"type":"text-delta","id":"[^"]*","delta":"((?:[^"\\]|\\.)*)"/g)]
      .map((match) => JSON.parse(`"${match[1]!}"`) as string)
      .join('');
  step(
    'sign-in: /me answers the owner, AGENT is an agent id',
    printed.includes('"email":"owner@demo.test"') && /^[0-9a-f-]{36}$/.test(variables.AGENT ?? ''),
  );
  step(
    'the turn asks for an approval, and its id is kept',
    printed.includes('"type":"tool-approval-request"') && /^[0-9a-f-]{36}$/.test(variables.APPROVAL ?? ''),
  );
  const answer = deltas(printed);
  step(
    'approved, the search runs and the answer says 5 to 7 business days',
    printed.includes('"type":"tool-output-available"') && answer.includes('within 5 to 7 business days'),
    JSON.stringify(answer.slice(0, 160)),
  );
  step('the sample document is added', /"name":"warranty\.md","contentType":"text\/markdown"/.test(printed));
  step('the tool catalog says what is available', printed.includes('"available":true'));
  const sharePage = `${base}/chat/${variables.KEY ?? ''}`;
  step('the share page is printed as a full URL', printed.includes(`share page: ${sharePage}`) && /^agp_/.test(variables.KEY ?? ''));
  const share = await fetch(sharePage);
  step('the share page answers', share.status === 200 && (share.headers.get('content-type') ?? '').startsWith('text/html'));

  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    await page.goto(`http://localhost:${pagePort}`);
    await page.getByRole('button', { name: 'Open the chat' }).click();
    const panel = page.getByRole('dialog', { name: 'Support Assistant' });
    await page.getByRole('textbox', { name: 'Message' }).fill('How long do refunds take?');
    await page.getByRole('button', { name: 'Send' }).click();
    // The answer's paragraph (the tool card's details hold the passage too).
    const answered = await panel
      .locator('p', { hasText: 'within 5 to 7 business days' })
      .first()
      .waitFor({ timeout: 60_000 })
      .then(() => true)
      .catch(() => false);
    step('the widget on the README page answers "How long do refunds take?" with 5 to 7 business days', answered);
  } finally {
    await browser.close();
  }

  const test = run('npm', ['test', '--', 'test/core/entry-redirects.test.ts'], clone, newcomerEnv());
  step('npm test runs (one file)', test.status === 0, test.output.match(/\d+ tests? passed/)?.[0] ?? test.output.slice(-500));
} catch (error) {
  step('the check ran to its end', false, error instanceof Error ? error.message : String(error));
} finally {
  for (const child of children) {
    try {
      if (child.pid) process.kill(-child.pid, 'SIGTERM');
    } catch {
      // Already gone.
    }
  }
  if (keep || failures.length > 0) process.stdout.write(`the clone stays at ${clone}\n`);
  else rmSync(clone, { recursive: true, force: true });
}
process.stdout.write(failures.length ? `README check failed: ${failures.join('; ')}\n` : 'README check passed\n');
process.exitCode = failures.length ? 1 : 0;
