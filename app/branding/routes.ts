import { Type } from '@sinclair/typebox';
import { defineRoute } from '../core/route.ts';
import { ORGANIZATION_SCOPE } from '../core/route-scope.ts';
import { EmailAddress, StrictObject } from '../core/schemas.ts';
import { brandOf, brandOfHost, setBrand } from './brand.ts';
import { ORGANIZATION_HOST_TAKEN } from './errors.ts';

const tags = ['branding'];

/** A host name (optionally with a port) as a browser sends it in `Host`: letters, digits, dots and dashes. */
const Host = Type.String({
  minLength: 1,
  maxLength: 253,
  pattern: '^([A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)*(:[0-9]{1,5})?$',
  errorMessage: 'must be a host name',
});

const Color = Type.String({ pattern: '^#[0-9A-Fa-f]{6}$', errorMessage: 'must be a color as #rrggbb' });
const LogoUrl = Type.Union([
  Type.String({ maxLength: 2048, pattern: '^https://[^\\s"\'<>\\\\\\u0000-\\u001f\\u007f]+$', errorMessage: 'must be an https URL' }),
  Type.Null(),
]);
const ProductName = Type.String({
  minLength: 1,
  maxLength: 60,
  pattern: '^[^\\u0000-\\u001f\\u007f]*[^\\s\\u0000-\\u001f\\u007f][^\\u0000-\\u001f\\u007f]*$',
});

const BrandingBody = StrictObject({
  productName: ProductName,
  primaryColor: Color,
  logoUrl: LogoUrl,
  supportEmail: Type.Union([EmailAddress(), Type.Null()]),
  hosts: Type.Array(Host, { maxItems: 5 }),
});

const BrandingSchema = Type.Object({
  productName: Type.String(),
  primaryColor: Type.String(),
  logoUrl: Type.Union([Type.String(), Type.Null()]),
  supportEmail: Type.Union([Type.String(), Type.Null()]),
  hosts: Type.Array(Type.String()),
});

const PublicBrandingSchema = Type.Object({
  productName: Type.String(),
  primaryColor: Type.String(),
  logoUrl: Type.Union([Type.String(), Type.Null()]),
});

export const brandingRoutes = [
  defineRoute({
    method: 'PUT',
    path: '/organization/my/branding',
    summary: "Set the acting agency's brand: product name, color, logo, support email and the hosts its console is served on",
    description:
      'An AGENCY only (403 otherwise). A host another agency has is 409 ORGANIZATION.HOST_TAKEN. The logo is an https URL ' +
      'browsers load; the server never fetches it. Its businesses, their mail, widgets and share pages take this brand.',
    tags,
    auth: 'jwt',
    policy: { subject: 'organization', action: 'update' },
    scope: ORGANIZATION_SCOPE,
    schemas: { body: BrandingBody },
    errors: [ORGANIZATION_HOST_TAKEN],
    responses: { 200: { description: 'The brand', schema: BrandingSchema } },
    handler: ({ deps, scope, body }) => setBrand(deps, scope.organizationId, body),
  }),
  defineRoute({
    method: 'GET',
    path: '/organization/my/branding',
    summary: "The brand in force in the acting organization (a business's is its agency's; none: the product's own)",
    tags,
    auth: 'jwt',
    policy: { subject: 'organization', action: 'read' },
    scope: ORGANIZATION_SCOPE,
    responses: { 200: { description: 'The brand', schema: BrandingSchema } },
    handler: ({ deps, scope }) => brandOf(deps.db, scope.organizationId),
  }),
  defineRoute({
    method: 'GET',
    path: '/public/branding',
    summary: "The brand of the agency whose console is served on the request's host, else the product's own",
    description: 'No credentials: the sign-in page reads it. Matched on `Host` (behind a trusted proxy, `X-Forwarded-Host`).',
    tags,
    auth: 'public',
    rateLimit: { limit: 120, windowMs: '1m', identifierType: 'ip', source: 'project' },
    responses: { 200: { description: 'The public brand', schema: PublicBrandingSchema } },
    handler: ({ deps, ctx }) => brandOfHost(deps, ctx.host),
  }),
];
