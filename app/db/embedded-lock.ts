import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * PGlite keeps one process per data directory. A pid file stops a second process (the CLI
 * while the server runs, say) from opening the same files and corrupting them.
 */
export function lockDataDir(dir: string): () => void {
  const file = join(dir, 'pglite.pid');
  try {
    const pid = Number(readFileSync(file, 'utf8'));
    if (Number.isInteger(pid) && isAlive(pid)) {
      throw new Error(`The embedded database in ${dir} is in use by process ${pid}. Stop that process, or set DATABASE_URL.`);
    }
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') throw error;
  }
  writeFileSync(file, String(process.pid));
  return () => rmSync(file, { force: true });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
