import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { pino } from 'pino';
import { SingleBar, Presets } from 'cli-progress';
import { parsePricingFile } from '../../app/analytics/ingest/pricing-file.ts';
import { UsageLineError } from '../../app/analytics/ingest/usage-event-parser.ts';
import { afterUsageWritten } from '../../app/analytics/budget/checker.ts';
import { importUsageFile } from '../../app/analytics/ingest/usage-import.ts';
import { generateUsage } from '../../seeds/usage-generator.ts';
import { insertUsageEvents } from '../../sql/usage-events.ts';
import { findExistingOrganizationIds, upsertModelPricing } from '../../sql/usage-import.ts';
import { CliError, say, withDatabase } from '../cli-context.ts';

const positiveInteger = (name: string, max: number) => (value: string) => {
  const n = Number(value);
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(n) || n < 1 || n > max) {
    throw new CliError(`--${name} must be an integer from 1 to ${max}`);
  }
  return n;
};

export function registerUsage(program: Command) {
  program
    .command('import-usage')
    .description('import usage events from an NDJSON file (one event a line); all or nothing')
    .argument('<file>', 'NDJSON file')
    .action(async (file: string) => {
      await withDatabase(async ({ pool }, config) => {
        const started = Date.now();
        try {
          const imported = await importUsageFile(
            pool,
            file,
            (count) => say(`imported ${count} rows...`),
            () => say('another usage import is running; waiting for it to finish...'),
          );
          const seconds = (Date.now() - started) / 1000;
          say(`imported ${imported.rows} usage rows in ${seconds.toFixed(1)} s`);
          // The check every usage write runs: budgets the import pushed over a threshold alert now.
          const deps = { db: pool, config, clock: () => new Date(), logger: pino({ level: 'warn' }) };
          for (const organizationId of imported.organizationIds) await afterUsageWritten(deps, organizationId);
        } catch (error) {
          if (error instanceof UsageLineError) throw new CliError(`${error.message} (nothing was imported)`);
          if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`no such file: ${file}`);
          throw error;
        }
      });
    });

  program
    .command('import-pricing')
    .description('insert or replace model prices (USD per million tokens) from a JSON file')
    .argument('<file>', 'JSON array of { modelId, inputUsdPerMTok, outputUsdPerMTok, cacheReadUsdPerMTok }')
    .action(async (file: string) => {
      let prices;
      try {
        prices = parsePricingFile(await readFile(file, 'utf8'));
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') throw new CliError(`no such file: ${file}`);
        throw new CliError((error as Error).message);
      }
      await withDatabase(async ({ pool }) => {
        await upsertModelPricing(pool, prices);
        say(`upserted ${prices.length} model prices`);
      });
    });

  program
    .command('generate-usage')
    .description('add synthetic usage (models, actions, sources, cache reads, latencies; weekly and daily rhythms) ending now')
    .requiredOption('--org <id>', 'organization id')
    .requiredOption('--rows <n>', 'rows to add', positiveInteger('rows', 100_000_000))
    .option('--days <n>', 'days back from now', positiveInteger('days', 3650), 30)
    .option('--seed <n>', 'random seed (same seed, same rows)', positiveInteger('seed', 2 ** 31), 1)
    .action(async (options: { org: string; rows: number; days: number; seed: number }) => {
      await withDatabase(async ({ pool }) => {
        if (!(await findExistingOrganizationIds(pool, [options.org]).catch(() => new Set<string>())).has(options.org)) {
          throw new CliError(`--org: no organization with id ${options.org}`);
        }
        const bar = new SingleBar(
          { format: 'generate-usage [{bar}] {percentage}% | {value}/{total} rows | {rate} rows/s', stream: process.stderr },
          Presets.shades_classic,
        );
        const started = Date.now();
        bar.start(options.rows, 0, { rate: 0 });
        let done = 0;
        // One transaction per batch: a long generation can be interrupted and keeps what it wrote.
        // Pipelined: the next batch is generated while PostgreSQL inserts the previous one.
        let pending: Promise<void> = Promise.resolve();
        for (const batch of generateUsage({
          organizationId: options.org,
          rows: options.rows,
          days: options.days,
          end: new Date(),
          seed: options.seed,
        })) {
          await pending;
          pending = insertUsageEvents(pool, batch).then(() => {
            done += batch.length;
            bar.update(done, { rate: Math.round(done / Math.max(0.001, (Date.now() - started) / 1000)) });
          });
          pending.catch(() => {}); // awaited on the next turn or after the loop
        }
        await pending;
        bar.stop();
        say(`generated ${done} rows in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      });
    });
}
