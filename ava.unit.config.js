/**
 * The ava configuration of `npm run test:unit` (bin/test-unit.ts): package.json's, with the test
 * files in worker threads of one process instead of a process each. A process costs about 0.6 s
 * of CPU before its first test (Node, tsx's loader, ava's worker), a thread about a quarter less;
 * tsx is registered inside each thread (test/helpers/tsx-in-worker.js) because Node 20 does not
 * hand `--import` hooks on to threads. The full suite keeps processes: its files hold database
 * pools, servers and clocks that a shared process would let leak between them.
 */
import { readFileSync } from 'node:fs';

const { ava } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'));

export default {
  ...ava,
  workerThreads: true,
  nodeArguments: ava.nodeArguments.filter((argument) => argument !== '--import=tsx'),
  require: ['./test/helpers/tsx-in-worker.js'],
};
