import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { vector } from '@electric-sql/pglite-pgvector';
import { PGLiteSocketServer } from '@electric-sql/pglite-socket';
import { lockDataDir } from './embedded-lock.ts';

export type EmbeddedDatabase = {
  /** postgres:// URL of the private socket server. */
  url: string;
  close(): Promise<void>;
};

/**
 * The zero-configuration default: PGlite (PostgreSQL compiled to WASM) persisted in
 * `<dataDir>/pglite`, served over the PostgreSQL wire protocol on a private loopback port
 * so that the same Slonik code runs against it. PGlite is a single session, so the
 * server takes one connection at a time (use a pool of size 1). pgvector is loaded, so the
 * migration sql/migrations/1040_knowledge_vectors.sql creates it and the knowledge base's embedding ranking uses
 * its index (@electric-sql/pglite 0.5 ships no vector extension of its own; this package does).
 */
/** `dataDir` undefined: in memory, gone at exit (the smoke test uses this). */
export async function startEmbeddedDatabase(dataDir: string | undefined): Promise<EmbeddedDatabase> {
  let db: PGlite;
  let unlock = () => {};
  if (dataDir === undefined) {
    db = new PGlite({ extensions: { vector } });
  } else {
    const path = join(dataDir, 'pglite');
    mkdirSync(path, { recursive: true });
    unlock = lockDataDir(dataDir);
    db = new PGlite(path, { extensions: { vector } });
  }
  const server = new PGLiteSocketServer({ db, host: '127.0.0.1', port: 0, maxConnections: 1 });
  try {
    await db.waitReady;
    await server.start();
  } catch (error) {
    unlock();
    throw error;
  }
  const address = (server as unknown as { server?: { address(): { port: number } } }).server?.address();
  if (!address) throw new Error('embedded database did not report its port');
  return {
    url: `postgres://postgres@127.0.0.1:${address.port}/postgres`,
    async close() {
      await server.stop();
      await db.close();
      unlock();
    },
  };
}
