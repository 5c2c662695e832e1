import { z } from 'zod';

/** One environment variable as app/config-variables.ts declares it. */
export type Variable<T, N extends string = string> = {
  readonly name: N;
  readonly schema: z.ZodType<T, z.ZodTypeDef, unknown>;
  /** The text used when the variable is absent or blank. */
  readonly default: string | undefined;
  /** The docs table's default cell when there is no default text: what absence means. */
  readonly absent: string | undefined;
  readonly meaning: string;
};

type Doc = { meaning: string };
export function variable<T, N extends string>(
  name: N,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  doc: Doc & { default: string },
): Variable<T, N>;
export function variable<T, N extends string>(
  name: N,
  schema: z.ZodType<T, z.ZodTypeDef, unknown>,
  doc: Doc & { absent: string },
): Variable<T | undefined, N>;
export function variable(name: string, schema: z.ZodTypeAny, doc: Doc & { default?: string; absent?: string }): Variable<unknown> {
  return { name, schema: 'default' in doc ? schema : schema.optional(), default: doc.default, absent: doc.absent, meaning: doc.meaning };
}

export const url = (protocols: string[]) =>
  z
    .string()
    .url()
    .refine((value) => protocols.includes(new URL(value).protocol), {
      message: `must start with ${protocols.map((p) => `${p}//`).join(' or ')}`,
    });
export const int = (min: number, max = Number.MAX_SAFE_INTEGER) => z.coerce.number().int().min(min).max(max);
export const flag = z.enum(['true', 'false']);
/** `value` without the slashes it ends with (by hand: `/\/+$/` retries every run of slashes that is not at the end). */
export function withoutTrailingSlash(value: string): string {
  let end = value.length;
  while (end > 0 && value[end - 1] === '/') end--;
  return value.slice(0, end);
}

/** `https://app.example.com` yes; `https://app.example.com/`, `*` or a path, no. */
export function isOrigin(value: string): boolean {
  try {
    return new URL(value).origin === value;
  } catch {
    return false;
  }
}
