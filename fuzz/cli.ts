import { parseArgs } from 'node:util';
import { runFuzz } from './fuzz.ts';

const { values } = parseArgs({
  options: {
    seed: { type: 'string' },
    requests: { type: 'string', default: '20000' },
    concurrency: { type: 'string', default: '8' },
    hostile: { type: 'string', default: '0.6' },
  },
});

const seed = values.seed === undefined ? Math.floor(Math.random() * 2 ** 31) : Number(values.seed);
const requests = Number(values.requests);
const concurrency = Number(values.concurrency);
const hostileShare = Number(values.hostile);
for (const [name, value] of Object.entries({ seed, requests, concurrency, hostileShare })) {
  if (!Number.isFinite(value) || value < 0) {
    process.stderr.write(`--${name} must be a non-negative number\n`);
    process.exit(2);
  }
}
process.stdout.write(`fuzzing with --seed ${seed} --requests ${requests} --concurrency ${concurrency} --hostile ${hostileShare}\n`);
const result = await runFuzz({ seed, requests, concurrency, hostileShare });
process.exitCode = result.ok ? 0 : 1;
