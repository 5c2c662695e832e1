/**
 * The bounds and defaults of a request schema's fields (plain JSON Schema, as TypeBox builds it),
 * for the dashboard's generated `apiLimits` (bin/docs/client-types.ts): a form shows and checks
 * the limits the server validates with, never a copy of them. A field is named by its path from
 * the schema's root, properties joined by `.` and an array's elements as `[]`
 * (`guardrails.blockedTerms[]`). The branches of a union (a value or null) add their bounds to
 * the field's own; a bound its branches disagree on is left out (no one number says it).
 */

type Json = Record<string, unknown>;

/** The keywords a form can show or check; the others (patterns, formats) stay the server's. */
const KEPT = ['minLength', 'maxLength', 'minimum', 'maximum', 'minItems', 'maxItems', 'default'] as const;
export type FieldLimits = Partial<Record<(typeof KEPT)[number], unknown>>;

/** Every field of `schema` that has a bound or a default, by its path. */
export function limitsOf(schema: Json): Record<string, FieldLimits> {
  const found: Record<string, FieldLimits> = {};
  visit(schema, '', found);
  return found;
}

function visit(schema: Json, path: string, found: Record<string, FieldLimits>, conflicts = new Set<string>()): void {
  for (const key of KEPT) {
    if (!(key in schema)) continue;
    const known = (found[path] ??= {});
    const at = `${path} ${key}`;
    if (conflicts.has(at)) continue;
    if (key in known && JSON.stringify(known[key]) !== JSON.stringify(schema[key])) {
      conflicts.add(at);
      delete known[key];
      if (Object.keys(known).length === 0) delete found[path];
    } else known[key] = schema[key];
  }
  const join = (name: string) => (path ? `${path}.${name}` : name);
  for (const [name, property] of Object.entries((schema.properties ?? {}) as Record<string, Json>))
    visit(property, join(name), found, conflicts);
  if (schema.items && typeof schema.items === 'object') visit(schema.items as Json, `${path}[]`, found, conflicts);
  for (const key of ['anyOf', 'oneOf', 'allOf'] as const)
    for (const branch of (schema[key] as Json[] | undefined) ?? []) visit(branch, path, found, conflicts);
}
