import type { Outcome } from './engine.ts';
import type { Operation } from './document.ts';
import { curlOf } from './request.ts';

export type OperationStats = { count: number; statuses: Map<number, number> };

/** Tallies and keeps what the report needs: counts, statuses, the slowest answers, failures. */
export class Tally {
  readonly byOperation = new Map<string, OperationStats>();
  readonly slowest: Outcome[] = [];
  readonly failures: Outcome[] = [];
  total = 0;

  add(outcome: Outcome): void {
    this.total++;
    const key =
      outcome.operation?.key ??
      (outcome.request.raw ? 'malformed HTTP (raw bytes)' : `${outcome.request.method} on any path that does not document it`);
    const stats = this.byOperation.get(key) ?? { count: 0, statuses: new Map<number, number>() };
    this.byOperation.set(key, stats);
    stats.count++;
    stats.statuses.set(outcome.response.status, (stats.statuses.get(outcome.response.status) ?? 0) + 1);
    this.slowest.push(outcome);
    this.slowest.sort((a, b) => b.response.durationMs - a.response.durationMs);
    this.slowest.length = Math.min(this.slowest.length, 10);
    if (outcome.findings.length) this.failures.push(outcome);
  }

  /** Documented statuses that no answer had, per operation. */
  unseen(operations: Operation[]): Array<{ operation: string; statuses: number[] }> {
    return operations
      .map((operation) => ({
        operation: operation.key,
        statuses: [...operation.responses.keys()].filter((status) => !this.byOperation.get(operation.key)?.statuses.has(status)),
      }))
      .filter((entry) => entry.statuses.length);
  }
}

export function printReport(tally: Tally, operations: Operation[], extra: string[], write: (line: string) => void): void {
  write('');
  write('operation'.padEnd(70) + 'requests'.padStart(9) + '  statuses');
  for (const [key, stats] of [...tally.byOperation].sort(([a], [b]) => a.localeCompare(b))) {
    const statuses = [...stats.statuses]
      .sort(([a], [b]) => a - b)
      .map(([status, count]) => `${status}:${count}`)
      .join(' ');
    write(`${key.slice(0, 69).padEnd(70)}${String(stats.count).padStart(9)}  ${statuses}`);
  }
  write('');
  write('slowest answers:');
  for (const outcome of tally.slowest) {
    write(
      `  ${outcome.response.durationMs.toFixed(1).padStart(8)} ms  ${outcome.response.status}  ${outcome.request.method} ${outcome.request.target.slice(0, 90)}  (${outcome.request.kind}, ${outcome.request.principal})`,
    );
  }
  const unseen = tally.unseen(operations);
  write('');
  write(`documented statuses never seen (${unseen.reduce((sum, entry) => sum + entry.statuses.length, 0)}):`);
  for (const entry of unseen) write(`  ${entry.operation}: ${entry.statuses.join(', ')}`);
  // One example per operation, rule and status; the rest are counted.
  const groups = new Map<string, Outcome[]>();
  for (const outcome of tally.failures) {
    for (const finding of outcome.findings) {
      const key = `${outcome.request.operation} | ${finding.rule} | ${outcome.response.status}`;
      const group = groups.get(key) ?? [];
      groups.set(key, group);
      group.push(outcome);
    }
  }
  write('');
  write(`failures: ${tally.failures.length} answers in ${groups.size} groups`);
  if (groups.size) {
    write('  (curl lines: export BASE=http://localhost:3000 after `npm start`, and TOKEN_<principal> from a login as in the README;');
    write("   ids the server generated during the run differ from yours, the demo fixtures' ids do not)");
  }
  for (const [key, group] of groups) {
    const first = group[0]!;
    const finding = first.findings.find((f) => key.includes(`| ${f.rule} |`))!;
    write(`  [${group.length}x] ${key}: ${finding.detail.slice(0, 300)}`);
    write(`      request #${first.index} (${first.request.kind}, ${first.request.principal}): ${curlOf(first.request).slice(0, 1_500)}`);
  }
  for (const line of extra) write(line);
}
