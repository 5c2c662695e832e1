import { Command, CommanderError } from 'commander';
import { ConfigError } from '../app/config.ts';
import { CliError } from './cli-context.ts';
import { registerMigrate } from './commands/migrate.ts';
import { registerOutbox } from './commands/outbox.ts';
import { registerRateLimit } from './commands/rate-limit.ts';
import { registerSeed } from './commands/seed.ts';
import { registerUsage } from './commands/usage.ts';

const program = new Command()
  .name('npm run cli --')
  .description('Operator commands for the agents backend. DATABASE_URL selects the server; absent, the embedded database in DATA_DIR.')
  .exitOverride()
  .showHelpAfterError();

registerMigrate(program);
registerOutbox(program);
registerRateLimit(program);
registerSeed(program);
registerUsage(program);

try {
  await program.parseAsync(process.argv);
} catch (error) {
  if (error instanceof CommanderError) {
    process.exitCode = error.exitCode;
  } else {
    const known = error instanceof CliError || error instanceof ConfigError;
    process.stderr.write(`error: ${known ? (error as Error).message : String((error as Error).message ?? error)}\n`);
    process.exitCode = 1;
  }
}
