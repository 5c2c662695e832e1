import test from 'ava';
import { z } from 'zod';
import { fromRow } from '../../app/core/schemas.ts';
import { ToolPermission } from '../../sql/tool-permissions.ts';

test("a row answered as it is gets its route schema from the row's zod schema: the tool set's item", (t) => {
  t.like(fromRow(ToolPermission), {
    type: 'object',
    properties: {
      toolName: { type: 'string' },
      permissionStatus: { type: 'string', enum: ['always_allow', 'needs_approval', 'blocked'] },
      providerKey: { type: 'string' },
    },
    required: ['toolName', 'permissionStatus', 'providerKey'],
  });
});

test('nullable, optional, integer, date and array fields keep their meaning in the derived schema', (t) => {
  const row = z.object({
    n: z.number().int(),
    at: z.date(),
    note: z.string().nullable(),
    tags: z.array(z.string()),
    maybe: z.boolean().optional(),
  });
  t.like(fromRow(row), {
    properties: {
      n: { type: 'integer' },
      at: { type: 'string', format: 'date-time' },
      note: { anyOf: [{ type: 'string' }, { type: 'null' }] },
      tags: { type: 'array', items: { type: 'string' } },
      maybe: { type: 'boolean' },
    },
    required: ['n', 'at', 'note', 'tags'],
  });
});

test('a kind the derivation does not know fails when the schema is built, not when an answer is checked', (t) => {
  t.throws(() => fromRow(z.object({ when: z.bigint() })), { message: /no route schema for a ZodBigInt/ });
});
