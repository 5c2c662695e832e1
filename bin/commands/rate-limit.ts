import type { Command } from 'commander';

export function registerRateLimit(program: Command) {
  const rateLimit = program.command('rate-limit').description('inspect and clear rate-limit counters (the Redis of REDIS_URL)');
  rateLimit
    .command('reset')
    .description('forget the requests a client made to a rate-limited route, so its next request is allowed')
    .requiredOption('--route <route>', 'endpoint ("POST /api/identity/auth/user/login") or policy name ("user-login")')
    .requiredOption('--identifier <id>', 'client IP address, or user id on routes limited by user')
    // Loaded on use: the limiter library and the app's route table stay out of the other commands' start-up.
    .action(async (options: { route: string; identifier: string }) => {
      const { resetRateLimit } = await import('./rate-limit-reset.ts');
      await resetRateLimit(options);
    });
}
