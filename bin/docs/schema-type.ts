/**
 * A TypeScript type printed from a route schema (plain JSON Schema, as TypeBox builds it), for the
 * dashboard's generated client types (bin/docs/client-types.ts). It knows the subset the routes
 * use and throws on anything else, so a new keyword is a failing generator, never a silent `any`:
 * `type` (one or a list), object `properties`/`required`/`additionalProperties`/`patternProperties`,
 * `items`, `enum`, `const`, `anyOf`/`oneOf` (a union), `allOf` (an intersection) and `{}` (unknown).
 * Validation-only keywords (lengths, patterns, formats, bounds) do not change the type.
 */

type Json = Record<string, unknown>;

/**
 * `request`: the shape a client sends, where a property the server fills in (`default`) may be
 * left out and one the handler requires (`x-required-by-handler`) must be there. `response`: the
 * shape a client reads, exactly as `required` says.
 */
export type Direction = 'request' | 'response';

/** Keywords that narrow values without changing their TypeScript type, or only document them. */
const IGNORED = new Set([
  'description',
  'title',
  'default',
  'examples',
  'format',
  'pattern',
  'minLength',
  'maxLength',
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
  'errorMessage',
  'discriminator',
  'x-required-by-handler',
]);
const SHAPING = new Set(['type', 'properties', 'required', 'additionalProperties', 'patternProperties', 'items', 'enum', 'const']);
const COMPOSING = new Set(['anyOf', 'oneOf', 'allOf']);

const IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;
const propertyName = (name: string) => (IDENTIFIER.test(name) ? name : JSON.stringify(name));
const literal = (value: unknown) => JSON.stringify(value);

/** A printed type and how tightly it binds: a union (0), an intersection (1), or one term (2). */
type Printed = { text: string; binds: 0 | 1 | 2 };
const atom = (text: string): Printed => ({ text, binds: 2 });
/** The text of `type` where binding `at` least that tightly is needed (an array element: 2). */
const within = (type: Printed, at: 0 | 1 | 2) => (type.binds >= at ? type.text : `(${type.text})`);

/** A union of the types; a member that is itself a union joins it as it is (`A | B | C`). */
function unionOf(types: Printed[]): Printed {
  if (types.some((type) => type.text === 'unknown')) return atom('unknown');
  const texts = [...new Set(types.map((type) => (type.binds === 0 ? type.text : within(type, 1))))];
  if (texts.length === 1) return types[0]!;
  return { text: texts.join(' | '), binds: 0 };
}

/** One line of a JSDoc comment, so a description cannot end the comment early. */
const comment = (text: string) => `/** ${text.replace(/\*\//g, '*\\/').replace(/\s*\n\s*/g, ' ')} */`;

/** The TypeScript type of a value valid against `schema`. */
export const printType = (schema: Json, direction: Direction): string => printed(schema, direction).text;

function printed(schema: Json, direction: Direction): Printed {
  const unknownKeys = Object.keys(schema).filter((key) => !IGNORED.has(key) && !SHAPING.has(key) && !COMPOSING.has(key));
  if (unknownKeys.length) throw new Error(`schema-type: no TypeScript for the keyword(s) ${unknownKeys.join(', ')}`);
  const parts: Printed[] = [];
  const own = ownType(schema, direction);
  if (own !== undefined) parts.push(own);
  for (const key of ['anyOf', 'oneOf'] as const) {
    const branches = schema[key] as Json[] | undefined;
    if (branches) parts.push(unionOf(branches.map((branch) => printed(branch, direction))));
  }
  for (const branch of (schema.allOf as Json[] | undefined) ?? []) parts.push(printed(branch, direction));
  if (parts.length === 0) return atom('unknown');
  if (parts.length === 1) return parts[0]!;
  return { text: parts.map((part) => within(part, 2)).join(' & '), binds: 1 };
}

/** The type said by the schema's own keywords (not its branches), or undefined when it says none. */
function ownType(schema: Json, direction: Direction): Printed | undefined {
  if ('const' in schema) return atom(literal(schema.const));
  if (Array.isArray(schema.enum)) return unionOf(schema.enum.map((value) => atom(literal(value))));
  const type = schema.type as string | string[] | undefined;
  if (Array.isArray(type)) return unionOf(type.map((one) => ownType({ ...schema, type: one }, direction)!));
  switch (type) {
    case undefined:
      return schema.properties || schema.patternProperties ? objectType(schema, direction) : undefined;
    case 'string':
    case 'boolean':
    case 'null':
      return atom(type);
    case 'number':
    case 'integer':
      return atom('number');
    case 'array':
      return atom(`${schema.items ? within(printed(schema.items as Json, direction), 2) : 'unknown'}[]`);
    case 'object':
      // An object said by its branches only (TypeBox's `Intersect`): the branches are its type.
      if (!schema.properties && !schema.patternProperties && !schema.additionalProperties && [...COMPOSING].some((key) => key in schema))
        return undefined;
      return objectType(schema, direction);
    default:
      throw new Error(`schema-type: no TypeScript for type ${String(type)}`);
  }
}

function objectType(schema: Json, direction: Direction): Printed {
  const properties = (schema.properties ?? {}) as Record<string, Json>;
  const required = new Set((schema.required as string[] | undefined) ?? []);
  if (direction === 'request') for (const name of (schema['x-required-by-handler'] as string[] | undefined) ?? []) required.add(name);
  const members = Object.entries(properties).map(([name, property]) => {
    const optional = !required.has(name) || (direction === 'request' && property.default !== undefined);
    const description = typeof property.description === 'string' ? `${comment(property.description)}\n` : '';
    return `${description}${propertyName(name)}${optional ? '?' : ''}: ${printType(property, direction)};`;
  });
  // Keys beyond `properties`: a record's value schema (`patternProperties`, `additionalProperties`).
  const rest = [
    ...Object.values((schema.patternProperties ?? {}) as Record<string, Json>),
    ...(typeof schema.additionalProperties === 'object' ? [schema.additionalProperties as Json] : []),
  ];
  if (rest.length) {
    const value = unionOf(rest.map((one) => printed(one, direction))).text;
    if (members.length === 0) return atom(`Record<string, ${value}>`);
    members.push(`[key: string]: ${value};`);
  }
  if (members.length === 0) return atom(schema.additionalProperties === true ? 'Record<string, unknown>' : 'Record<string, never>');
  return atom(`{\n${members.join('\n')}\n}`);
}
