import test from 'ava';
import { sql } from 'slonik';
import { z } from 'zod';
import { PermissionStatus } from '../../app/tools/schemas.ts';
import { PERMISSION_STATUSES, ToolPermission } from '../../sql/tool-permissions.ts';
import { createTestDatabase, type TestDatabase } from '../helpers/database.ts';

let database: TestDatabase;
test.before(async () => {
  database = await createTestDatabase();
});
test.after.always(async () => {
  await database?.drop();
});

/** The string literals of a CHECK constraint's definition (`'always_allow'::text`, ...). */
const literalsOf = (definition: string) =>
  [...definition.matchAll(/'((?:[^']|'')*)'::text/g)].map(([, value]) => value!.replace(/''/g, "'"));

test("the database's CHECK on agent_tool_permissions.permission_status allows exactly the levels of PERMISSION_STATUSES", async (t) => {
  const definitions = await database.pool.anyFirst(sql.type(z.object({ definition: z.string() }))`
    SELECT pg_get_constraintdef(c.oid) AS definition
    FROM pg_constraint c
    JOIN pg_attribute a ON a.attrelid = c.conrelid AND a.attnum = ANY (c.conkey)
    WHERE c.conrelid = 'agent_tool_permissions'::regclass AND c.contype = 'c' AND a.attname = 'permission_status'`);
  t.is(definitions.length, 1, 'one CHECK names permission_status');
  t.deepEqual(literalsOf(definitions[0]!).sort(), [...PERMISSION_STATUSES].sort());
});

test('the route schema and the row schema accept exactly the same levels, the ones of the list', (t) => {
  t.deepEqual(PermissionStatus.enum, [...PERMISSION_STATUSES]);
  t.deepEqual(ToolPermission.shape.permissionStatus.options, [...PERMISSION_STATUSES]);
});

test('the CHECK reader finds every quoted level of a definition, quotes included', (t) => {
  t.deepEqual(literalsOf("CHECK ((permission_status = ANY (ARRAY['a'::text, 'it''s'::text])))"), ['a', "it's"]);
});
