// A private PostgreSQL primary and its streaming standby (initdb, then pg_basebackup -R), on free loopback
// ports in a temporary directory; never the shared server on 5432, whose configuration tests must not touch.
import { execFile } from 'node:child_process';
import { chmod, chown, mkdtemp, readdir, rm, appendFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export type StandbyPair = {
  primaryUrl: string;
  replicaUrl: string;
  /** Stops the standby at once (`pg_ctl stop -m immediate`), as a crash would. */
  stopReplica(): Promise<void>;
  stop(): Promise<void>;
};

async function binDir(): Promise<string> {
  const versions = (await readdir('/usr/lib/postgresql')).sort((a, b) => Number(a) - Number(b));
  const latest = versions.at(-1);
  if (latest === undefined) throw new Error('no PostgreSQL server binaries under /usr/lib/postgresql');
  return `/usr/lib/postgresql/${latest}/bin`;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** PostgreSQL refuses to run as root: as root, commands run as the `postgres` user (Debian's server account). */
const asServerUser = (bin: string, args: string[]) =>
  process.getuid?.() === 0 ? run('runuser', ['-u', 'postgres', '--', bin, ...args]) : run(bin, args);

export async function startStandbyPair(): Promise<StandbyPair> {
  const bin = await binDir();
  const dir = await mkdtemp(join(tmpdir(), 'pg-standby-'));
  if (process.getuid?.() === 0) {
    const { stdout } = await run('id', ['-u', 'postgres']);
    const { stdout: gid } = await run('id', ['-g', 'postgres']);
    await chown(dir, Number(stdout), Number(gid));
  }
  await chmod(dir, 0o700);
  const primary = join(dir, 'primary');
  const standby = join(dir, 'standby');
  const [primaryPort, standbyPort] = [await freePort(), await freePort()];
  const started: string[] = [];
  const start = async (data: string, port: number) => {
    await asServerUser(`${bin}/pg_ctl`, [
      '-D',
      data,
      '-l',
      `${data}.log`,
      '-w',
      '-t',
      '60',
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1`,
      'start',
    ]);
    started.push(data);
  };
  const stopServer = async (data: string, mode: 'fast' | 'immediate') => {
    if (!started.includes(data)) return;
    started.splice(started.indexOf(data), 1);
    await asServerUser(`${bin}/pg_ctl`, ['-D', data, '-m', mode, '-w', 'stop']).catch(() => undefined);
  };
  try {
    // initdb's pg_hba.conf lets local and loopback connections in, replication ones included (trust).
    await asServerUser(`${bin}/initdb`, ['-D', primary, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8']);
    await appendFile(
      primary + '/postgresql.conf',
      '\nwal_level = replica\nmax_wal_senders = 4\nfsync = off\nsynchronous_commit = off\nfull_page_writes = off\n',
    );
    await start(primary, primaryPort);
    await asServerUser(`${bin}/pg_basebackup`, [
      '-h',
      '127.0.0.1',
      '-p',
      String(primaryPort),
      '-U',
      'postgres',
      '-D',
      standby,
      '-R',
      '-X',
      'stream',
      '--no-sync',
    ]);
    await start(standby, standbyPort);
  } catch (error) {
    for (const data of [...started]) await stopServer(data, 'immediate');
    await rm(dir, { recursive: true, force: true });
    throw error;
  }
  return {
    primaryUrl: `postgres://postgres@127.0.0.1:${primaryPort}/postgres`,
    replicaUrl: `postgres://postgres@127.0.0.1:${standbyPort}/postgres`,
    stopReplica: () => stopServer(standby, 'immediate'),
    async stop() {
      await stopServer(standby, 'immediate');
      await stopServer(primary, 'immediate');
      await rm(dir, { recursive: true, force: true });
    },
  };
}
