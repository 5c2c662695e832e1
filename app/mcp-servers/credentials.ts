import { HttpError, ValidationError, type ValidationIssue } from '../core/errors.ts';
import { VALUE_PLACEHOLDER, type Variant } from '../mcp-catalog/schemas.ts';

/**
 * What is sealed for a server: request headers (static_headers auth) and other credential
 * values. Header fields of a catalog variant become headers named by their key, their value
 * built with the field's `valueTemplate` (docs/mcp.md, "Header value templates").
 */
export type StoredCredentials = { headers: Record<string, string>; values: Record<string, string> };

/** `Bearer {value}` + `abc` -> `Bearer abc`; a value pasted with the prefix already is not prefixed twice. */
export function applyTemplate(template: string | undefined, pasted: string): string {
  const value = pasted.trim();
  if (!template) return value;
  const [prefix = '', suffix = ''] = template.split(VALUE_PLACEHOLDER);
  let token = value;
  if (prefix.trim() !== '' && token.toLowerCase().startsWith(prefix.toLowerCase())) token = token.slice(prefix.length).trim();
  if (suffix !== '' && token.endsWith(suffix)) token = token.slice(0, -suffix.length);
  return `${prefix}${token}${suffix}`;
}

/**
 * Steps 3 of the catalog flow: every given key must be a credential field of the variant
 * (else 400 at that key); every required field must have a non-blank value or a default (else
 * 422 naming all missing fields). Answers what to seal, or null when nothing is given.
 */
export function credentialsForVariant(variant: Variant, given: Record<string, string>): StoredCredentials | null {
  const fields = variant.credentialSchema.fields;
  const unknown: ValidationIssue[] = Object.keys(given)
    .filter((key) => !fields.some((field) => field.key === key))
    .map((key) => ({ path: ['credentials', key], message: `is not a credential field of the ${variant.type} variant` }));
  if (unknown.length) throw new ValidationError(unknown);

  const valueOf = (key: string, fallback: string | undefined) => {
    const value = given[key];
    return value !== undefined && value.trim() !== '' ? value : fallback;
  };
  const missingFields = fields.filter((field) => field.required && valueOf(field.key, field.default) === undefined).map((f) => f.key);
  if (missingFields.length) {
    throw new HttpError(422, `Missing required credentials: ${missingFields.join(', ')}`, { missingFields });
  }

  const stored: StoredCredentials = { headers: {}, values: {} };
  for (const field of fields) {
    const value = valueOf(field.key, field.default);
    if (value === undefined) continue;
    if (field.type === 'header') stored.headers[field.key] = applyTemplate(field.valueTemplate, value);
    else stored.values[field.key] = applyTemplate(field.valueTemplate, value);
  }
  return Object.keys(stored.headers).length + Object.keys(stored.values).length ? stored : null;
}

/** A server added without the catalog: its credentials are request headers as given. */
export function customCredentials(given: Record<string, string>): StoredCredentials | null {
  const headers = Object.fromEntries(
    Object.entries(given)
      .filter(([, value]) => value.trim() !== '')
      .map(([k, v]) => [k, v.trim()]),
  );
  return Object.keys(headers).length ? { headers, values: {} } : null;
}
