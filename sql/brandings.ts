import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';
import { CountRow } from './rows.ts';

/* An agency's brand and the hosts its console is served on (migration 1222, docs/billing.md "Branding"). */

const Branding = z.strictObject({
  productName: z.string(),
  primaryColor: z.string(),
  logoUrl: z.string().nullable(),
  supportEmail: z.string().nullable(),
  hosts: z.array(z.string()),
});
export type Branding = z.infer<typeof Branding>;

const columns = sql.fragment`
  b.product_name AS "productName", b.primary_color AS "primaryColor", b.logo_url AS "logoUrl", b.support_email AS "supportEmail",
  coalesce((SELECT array_agg(h.host ORDER BY h.host) FROM organization_brand_hosts h WHERE h.organization_id = b.organization_id),
           '{}') AS hosts`;

/**
 * Sets the agency's brand and replaces its hosts, in the caller's transaction. Answers how many of
 * `hosts` it holds now: fewer than given means another agency has one (the caller rolls back).
 */
export async function putBranding(tx: CommonQueryMethods, organizationId: string, brand: Branding, now: Date): Promise<number> {
  await tx.query(sql.unsafe`
    INSERT INTO organization_brandings (organization_id, product_name, primary_color, logo_url, support_email, updated_at)
    VALUES (${organizationId}, ${brand.productName}, ${brand.primaryColor}, ${brand.logoUrl}, ${brand.supportEmail}, ${sql.timestamp(now)})
    ON CONFLICT (organization_id) DO UPDATE SET product_name = excluded.product_name, primary_color = excluded.primary_color,
      logo_url = excluded.logo_url, support_email = excluded.support_email, updated_at = excluded.updated_at`);
  await tx.query(sql.unsafe`DELETE FROM organization_brand_hosts WHERE organization_id = ${organizationId}`);
  return tx.oneFirst(sql.type(CountRow)`
    WITH added AS (
      INSERT INTO organization_brand_hosts (host, organization_id)
      SELECT host, ${organizationId} FROM unnest(${sql.array(brand.hosts, 'text')}::text[]) AS host
      ON CONFLICT (host) DO NOTHING RETURNING 1)
    SELECT count(*)::int AS n FROM added`);
}

/** The brand in force for an organization: its own (an agency), else its agency's (a business); null for none. */
export function findBrandingInForce(db: CommonQueryMethods, organizationId: string) {
  return db.maybeOne(sql.type(Branding)`
    SELECT ${columns} FROM organizations o
    JOIN organization_brandings b ON b.organization_id = coalesce(o.parent_id, o.id)
    WHERE o.id = ${organizationId}`);
}

/** The brand of the agency whose hosts include `host`; null for none. */
export function findBrandingByHost(db: CommonQueryMethods, host: string) {
  return db.maybeOne(sql.type(Branding)`
    SELECT ${columns} FROM organization_brand_hosts h JOIN organization_brandings b ON b.organization_id = h.organization_id
    WHERE h.host = ${host}`);
}
