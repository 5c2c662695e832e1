/**
 * The ava configuration of `npm run test:unit` (bin/test-unit.ts): package.json's, with the test
 * files in worker threads of one process instead of a process each. A process costs about 0.5 s
 * of CPU before its first test (Node and ava's worker), a thread less; Node 24 strips the
 * TypeScript types in threads as in processes, so no loader is registered. The full suite keeps
 * processes: its files hold database pools, servers and clocks that a shared process would let
 * leak between them.
 */
import { readFileSync } from 'node:fs';

const { ava } = JSON.parse(readFileSync(new URL('package.json', import.meta.url), 'utf8'));

export default {
  ...ava,
  workerThreads: true,
};
