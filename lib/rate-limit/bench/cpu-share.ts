// Share of a process's busy CPU time spent inside one function, from a V8 CPU profile (node:inspector).
// Unlike requests/s over loopback, this does not move with the load generator or other tenants of the machine.

/** The parts of a V8 `Profiler.Profile` this module reads. */
export interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string }; children?: number[] }>;
  samples: number[];
  timeDeltas: number[];
}

/**
 * Of the sampled busy time (everything but `(idle)`), the share spent inside `fn` itself and what it calls,
 * excluding time under a nested `boundary` frame (Koa's `dispatch`, i.e. the downstream middleware and route,
 * which a bare server runs too). Returns a fraction in [0, 1].
 */
export function cpuShareOf(profile: CpuProfile, fn: string, boundary = 'dispatch'): number {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const selfTime = new Map<number, number>();
  profile.samples.forEach((id, i) => selfTime.set(id, (selfTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));

  let busy = 0;
  for (const node of profile.nodes) if (node.callFrame.functionName !== '(idle)') busy += selfTime.get(node.id) ?? 0;

  // Sums self time below `id`, not descending into `boundary` frames (once inside `fn`) or nested `fn` frames.
  const inside = (id: number): number => {
    const node = byId.get(id);
    if (node === undefined) return 0;
    let sum = selfTime.get(id) ?? 0;
    for (const child of node.children ?? []) {
      const name = byId.get(child)?.callFrame.functionName;
      if (name !== boundary && name !== fn) sum += inside(child);
    }
    return sum;
  };
  let spent = 0;
  const walk = (id: number): void => {
    const node = byId.get(id);
    if (node === undefined) return;
    if (node.callFrame.functionName === fn) spent += inside(id);
    for (const child of node.children ?? []) walk(child);
  };
  const root = profile.nodes[0];
  if (root !== undefined) walk(root.id);
  return busy === 0 ? 0 : spent / busy;
}
