import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

const SealedRow = z.strictObject({ keyId: z.string(), sealed: z.instanceof(Buffer) });

/** The client registered (RFC 7591) with this issuer for this redirect URI, sealed. */
export function findRegisteredClient(db: CommonQueryMethods, issuer: string, redirectUri: string) {
  return db.maybeOne(sql.type(SealedRow)`
    SELECT key_id AS "keyId", sealed
    FROM mcp_oauth_clients
    WHERE issuer = ${issuer} AND redirect_uri = ${redirectUri}`);
}

/** Keeps the first registration when two initiates register at once; answers whether this one was kept. */
export async function insertRegisteredClient(
  db: CommonQueryMethods,
  client: { issuer: string; redirectUri: string; keyId: string; sealed: Buffer },
): Promise<boolean> {
  const result = await db.query(sql.unsafe`
    INSERT INTO mcp_oauth_clients (issuer, redirect_uri, key_id, sealed)
    VALUES (${client.issuer}, ${client.redirectUri}, ${client.keyId}, ${sql.binary(client.sealed)})
    ON CONFLICT (issuer, redirect_uri) DO NOTHING`);
  return result.rowCount === 1;
}
