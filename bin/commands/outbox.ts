import type { Command } from 'commander';
import { pino } from 'pino';
import { OutboxWorker } from '../../app/notifications/delivery/outbox-worker.ts';
import { sendersFor } from '../../app/notifications/delivery/senders.ts';
import { outboxJobs } from '../../app/outbox-jobs.ts';
import { say, withDatabase } from '../cli-context.ts';

export function registerOutbox(program: Command) {
  const outbox = program.command('outbox').description('the notification outbox (email and SMS)');
  outbox
    .command('deliver')
    .description('send every message that is due now through SMTP_URL / SMS_PROVIDER_URL, then exit')
    .action(async () => {
      await withDatabase(async (database, config) => {
        const logger = pino({ level: 'info' }, process.stderr);
        const worker = new OutboxWorker({
          db: database.pool,
          keyring: config.credentialsKeyring,
          senders: sendersFor(config, logger),
          logger,
          jobs: outboxJobs(database.pool, config, logger),
        });
        const result = await worker.drain();
        say(`sent ${result.sent}, queued jobs run ${result.jobs}, retrying later ${result.retried}, dead-lettered ${result.dead}`);
      });
    });
}
