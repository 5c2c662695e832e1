import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { SORT_FIELDS } from '../../sql/available-mcps.ts';
import { DateTime, NON_BLANK_PATTERN, StrictObject, StringEnum, Uuid } from '../core/schemas.ts';
import { REQUIRED_BY_HANDLER } from '../core/validation.ts';
import { HTTPS_LOGO_PATTERN, LOGO_RULE, RELATIVE_LOGO_MAX_LENGTH, RELATIVE_LOGO_PATTERN } from './logos.ts';

export const VARIANT_TYPES = ['free', 'apikey', 'oauth'] as const;
export type VariantType = (typeof VARIANT_TYPES)[number];

export const TRANSPORT_TYPES = ['http', 'sse'] as const;
export const TransportType = StringEnum(TRANSPORT_TYPES, { description: '`http` (streamable HTTP) or `sse`' });

/** `{value}` marks where the pasted secret goes: `Bearer {value}` (docs/mcp.md, "Header value templates"). */
export const VALUE_PLACEHOLDER = '{value}';

export const CredentialField = StrictObject({
  key: Type.String({
    minLength: 1,
    maxLength: 100,
    pattern: '^[A-Za-z][A-Za-z0-9_.-]*$',
    errorMessage: 'must start with a letter and contain only letters, digits, "_", "." and "-"',
    description: 'Key in the credentials map; the HTTP header name for `header` fields',
  }),
  label: Type.String({ minLength: 1, maxLength: 200 }),
  type: StringEnum(['text', 'password', 'header'] as const),
  required: Type.Boolean(),
  placeholder: Type.Optional(Type.String({ maxLength: 200 })),
  helpText: Type.Optional(Type.String({ maxLength: 500 })),
  default: Type.Optional(Type.String({ maxLength: 500 })),
  valueTemplate: Type.Optional(
    Type.String({
      maxLength: 200,
      pattern: '^[^{}\\u0000]*\\{value\\}[^{}\\u0000]*$',
      errorMessage: 'must contain {value} exactly once, for example "Bearer {value}"',
      description: 'How the stored value is built from what the user pastes, e.g. `Bearer {value}`',
    }),
  ),
});
export type CredentialField = Static<typeof CredentialField>;

const VariantUrl = Type.String({
  format: 'uri',
  maxLength: 2048,
  pattern: '^https?://[^\\u0000]*$',
  errorMessage: 'must be an absolute http(s) URL',
});

const variant = <T extends VariantType>(type: T, fields: TSchema) =>
  StrictObject({
    type: Type.Literal(type),
    url: VariantUrl,
    transportType: TransportType,
    credentialSchema: StrictObject({
      type: Type.Literal(type),
      fields,
    }),
  });

const NoFields = Type.Array(CredentialField, {
  maxItems: 0,
  errorMessage: 'must be empty for free and oauth variants',
});

export const FreeVariant = variant('free', NoFields);
export const ApiKeyVariant = variant(
  'apikey',
  Type.Array(CredentialField, { minItems: 1, maxItems: 20, errorMessage: 'must have at least one credential field for apikey variants' }),
);
export const OAuthVariant = variant('oauth', NoFields);

type VariantStatic =
  | Static<typeof FreeVariant>
  | (Omit<Static<typeof ApiKeyVariant>, 'credentialSchema'> & {
      credentialSchema: { type: 'apikey'; fields: CredentialField[] };
    })
  | Static<typeof OAuthVariant>;

/**
 * The variant union, discriminated on `type` (AJV `discriminator`, which needs `oneOf`): only
 * the branch named by `type` is checked, so a 400 points at the offending variant and field.
 */
export const Variant = Type.Unsafe<VariantStatic>({
  type: 'object',
  required: ['type'],
  properties: { type: { type: 'string' } },
  discriminator: { propertyName: 'type' },
  oneOf: [FreeVariant, ApiKeyVariant, OAuthVariant],
});
export type Variant = {
  type: VariantType;
  url: string;
  transportType: 'http' | 'sse';
  credentialSchema: { type: VariantType; fields: CredentialField[] };
};

const Name = Type.String({ minLength: 1, maxLength: 200, pattern: NON_BLANK_PATTERN, errorMessage: 'must not be empty' });
const Tags = Type.Array(
  Type.String({ minLength: 1, maxLength: 50, pattern: NON_BLANK_PATTERN, errorMessage: 'must be a non-empty string' }),
  {
    minItems: 1,
    maxItems: 20,
    uniqueItems: true,
    errorMessage: 'must hold 1 to 20 distinct non-empty strings',
  },
);
/** Empty, a relative path to an image (resolved against `/api/static/`), or an https URL (app/mcp-catalog/logos.ts). */
const Logo = Type.Union(
  [
    Type.String({ maxLength: 0, errorMessage: LOGO_RULE }),
    Type.String({ minLength: 1, maxLength: RELATIVE_LOGO_MAX_LENGTH, pattern: RELATIVE_LOGO_PATTERN, errorMessage: LOGO_RULE }),
    Type.String({ maxLength: 2048, pattern: HTTPS_LOGO_PATTERN, errorMessage: LOGO_RULE }),
  ],
  {
    errorMessage: LOGO_RULE,
    description:
      'Empty (no logo), a relative path to an image or an https URL. A relative path (at most 255 characters; segments of ' +
      'letters, digits and `_~@+-` joined by single dots, separated by `/`, ending in .svg, .png, .jpg, .jpeg, .webp, .gif or ' +
      ".avif; no scheme, leading slash, `..` or backslash) is relative to this service's `/api/static/`: `logos/github.svg` " +
      'is served at `/api/static/logos/github.svg`. The shipped logos and those uploaded with `PUT /api/available-mcps/{id}/logo` ' +
      '(`logos/<id>.<png|jpg|webp>`) are served there; another relative path is stored as given for a front-end that serves it.',
  },
);
/** Not required by the schema: a missing or empty list is a 422 (docs/interface.md §7), checked by the handler. */
const Variants = Type.Array(Variant, {
  maxItems: 3,
  description:
    'At least one variant (checked by the handler: 422 when missing or empty), and at most one of each type (400 at the repeated one).',
});

export const CreateAvailableMcpBody = StrictObject(
  {
    name: Name,
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    logo: Type.Optional(Logo),
    tags: Tags,
    variants: Type.Optional(Variants),
  },
  { [REQUIRED_BY_HANDLER]: ['variants'] },
);
export type CreateAvailableMcpBody = Static<typeof CreateAvailableMcpBody>;

export const UpdateAvailableMcpBody = StrictObject(
  {
    name: Type.Optional(Name),
    description: Type.Optional(Type.String({ maxLength: 1000 })),
    logo: Type.Optional(Logo),
    tags: Type.Optional(Tags),
    variants: Type.Optional(Variants),
  },
  { minProperties: 1, errorMessage: 'must change at least one field' },
);
export type UpdateAvailableMcpBody = Static<typeof UpdateAvailableMcpBody>;

export const ListAvailableMcpsQuery = StrictObject({
  tags: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 50 }), { maxItems: 20 })),
  page: Type.Integer({ minimum: 1, maximum: 100_000, default: 1 }),
  limit: Type.Integer({ minimum: 1, maximum: 100, default: 20 }),
  sort: Type.Optional(
    Type.Array(
      StrictObject({
        field: StringEnum(SORT_FIELDS),
        direction: StringEnum(['asc', 'desc'] as const, { default: 'asc' }),
      }),
      { minItems: 1, maxItems: 3 },
    ),
  ),
});
export type ListAvailableMcpsQuery = Static<typeof ListAvailableMcpsQuery>;

export const AvailableMcpDto = Type.Object({
  id: Uuid(),
  name: Type.String(),
  description: Type.String(),
  logo: Type.String(),
  tags: Type.Array(Type.String()),
  variants: Type.Array(Variant),
  isActive: Type.Boolean(),
  createdAt: DateTime(),
  updatedAt: DateTime(),
});
export type AvailableMcpDto = Static<typeof AvailableMcpDto>;
