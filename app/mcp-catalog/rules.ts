import { HttpError, ValidationError, type ValidationIssue } from '../core/errors.ts';
import type { Variant } from './schemas.ts';

/**
 * The catalog rules a JSON schema cannot state (docs/interface.md §7), checked after the schema:
 * - `variants` present and non-empty on create, non-empty when given on update: else 422;
 * - one variant per type in an entry: 400 at the repeated variant's `type`;
 * - credential field keys unique within a variant: 400 at the repeated field's `key`.
 */
export function checkVariants(variants: Variant[] | undefined, required: boolean): void {
  if (variants === undefined) {
    if (required) throw new HttpError(422, 'variants is required and must hold at least one variant');
    return;
  }
  if (variants.length === 0) throw new HttpError(422, 'variants must hold at least one variant');
  const issues: ValidationIssue[] = [];
  const types = new Set<string>();
  variants.forEach((variant, index) => {
    if (types.has(variant.type)) {
      issues.push({
        path: ['variants', String(index), 'type'],
        message: `a ${variant.type} variant is already given; one variant per type`,
      });
    }
    types.add(variant.type);
    const keys = new Set<string>();
    variant.credentialSchema.fields.forEach((field, fieldIndex) => {
      const key = field.key.toLowerCase();
      if (keys.has(key)) {
        issues.push({
          path: ['variants', String(index), 'credentialSchema', 'fields', String(fieldIndex), 'key'],
          message: `key "${field.key}" is already used in this variant`,
        });
      }
      keys.add(key);
    });
  });
  if (issues.length) throw new ValidationError(issues);
}
