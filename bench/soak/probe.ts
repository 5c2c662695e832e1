/**
 * Bench-only probe, preloaded into the service's process by the soak bench
 * (`node --import ./bench/soak/probe.ts app/server.ts`); the service's code is unchanged.
 *
 * Over the IPC channel the bench opened, it answers `{ type: 'stats' }` with the process's own
 * RSS and heap (process.memoryUsage) and the event-loop delay since the previous answer
 * (perf_hooks.monitorEventLoopDelay, 10 ms resolution, reset on each answer). When the bench
 * goes away (the channel closes) the service gets SIGTERM, so it never outlives the bench.
 */
import { monitorEventLoopDelay } from 'node:perf_hooks';

export type ProbeStats = {
  type: 'stats';
  rssBytes: number;
  heapUsedBytes: number;
  /** Event-loop delay since the previous answer, in milliseconds. */
  loopDelayP50Ms: number;
  loopDelayP99Ms: number;
  loopDelayMaxMs: number;
};

if (process.send) {
  const delay = monitorEventLoopDelay({ resolution: 10 });
  delay.enable();
  process.on('message', (message: unknown) => {
    if ((message as { type?: unknown } | null)?.type !== 'stats') return;
    const memory = process.memoryUsage();
    const stats: ProbeStats = {
      type: 'stats',
      rssBytes: memory.rss,
      heapUsedBytes: memory.heapUsed,
      // The histogram is in nanoseconds; an empty one (no sample yet) reads 0, not its sentinel.
      loopDelayP50Ms: delay.count ? delay.percentile(50) / 1e6 : 0,
      loopDelayP99Ms: delay.count ? delay.percentile(99) / 1e6 : 0,
      loopDelayMaxMs: delay.count ? delay.max / 1e6 : 0,
    };
    delay.reset();
    process.send?.(stats);
  });
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}
