import type { CommonQueryMethods } from 'slonik';
import { findBrandingByHost, findBrandingInForce, putBranding, type Branding } from '../../sql/brandings.ts';
import type { AppDeps } from '../core/deps.ts';
import { requireAgency } from '../billing/business-plan.ts';
import { hostTaken } from './errors.ts';

/*
 * White label (docs/billing.md, "Branding"): an agency's product name, color, logo and support
 * address, shown by the console on its hosts and to its users, in the mail to its and its
 * businesses' users, and by the widget and share page of their agents. The logo is a URL that
 * browsers load; the server never fetches it.
 */

/** The product's own brand: what shows where no agency's applies. */
export const PRODUCT_BRAND: Branding = {
  productName: 'Agents',
  primaryColor: '#1d4ed8',
  logoUrl: null,
  supportEmail: null,
  hosts: [],
};

/** The brand in force for an organization (its agency's for a business), else the product's own. */
export async function brandOf(db: CommonQueryMethods, organizationId: string): Promise<Branding> {
  return (await findBrandingInForce(db, organizationId)) ?? PRODUCT_BRAND;
}

/** Sets the acting agency's brand (403 for a business); 409 `ORGANIZATION.HOST_TAKEN` when another agency has a host. */
export async function setBrand(deps: AppDeps, organizationId: string, brand: Branding): Promise<Branding> {
  await requireAgency(deps, organizationId);
  const normalized = {
    ...brand,
    primaryColor: brand.primaryColor.toLowerCase(),
    supportEmail: brand.supportEmail?.toLowerCase() ?? null,
    hosts: [...new Set(brand.hosts.map((host) => host.toLowerCase()))].sort(),
  };
  await deps.db.transaction(async (tx) => {
    const held = await putBranding(tx, organizationId, normalized, deps.clock());
    if (held < normalized.hosts.length) throw hostTaken();
  });
  return normalized;
}

/**
 * The request's host as the console's hosts are matched: `ctx.host` (behind a proxy the app trusts,
 * `X-Forwarded-Host`), lowercased, without a trailing dot.
 */
export const requestHost = (host: string) => host.toLowerCase().replace(/\.$/, '').replace(/\.:/, ':');

/** The public part of the brand of the agency serving `host`, else the product's own. */
export async function brandOfHost(deps: Pick<AppDeps, 'db'>, host: string) {
  const brand = (host && (await findBrandingByHost(deps.db, requestHost(host)))) || PRODUCT_BRAND;
  return { productName: brand.productName, primaryColor: brand.primaryColor, logoUrl: brand.logoUrl };
}
