import { Type } from '@sinclair/typebox';
import {
  deactivateAvailableMcp,
  insertAvailableMcp,
  listActiveAvailableMcps,
  NameTakenError,
  updateAvailableMcp,
  type AvailableMcpRow,
} from '../../sql/available-mcps.ts';
import { HttpError, notFound } from '../core/errors.ts';
import { defineRoute } from '../core/route.ts';
import { ErrorBody, UuidParam } from '../core/schemas.ts';
import { checkVariants } from './rules.ts';
import { AvailableMcpDto, CreateAvailableMcpBody, ListAvailableMcpsQuery, UpdateAvailableMcpBody, type Variant } from './schemas.ts';

const SUBJECT = 'platform.ai.available-mcp';
const tags = ['available-mcps'];

const nameTaken = () => new HttpError(409, 'A catalog entry with this name already exists');
const entryNotFound = () => notFound('Catalog entry');

async function rethrowNameTaken<T>(run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof NameTakenError) throw nameTaken();
    throw error;
  }
}

const dto = (row: AvailableMcpRow) => row;

export const availableMcpRoutes = [
  defineRoute({
    method: 'GET',
    path: '/available-mcps',
    summary: 'List active catalog entries',
    description:
      'Any valid token. `tags[0]=a&tags[1]=b` returns entries sharing at least one tag (OR). ' +
      '`sort[i][field]` is createdAt, updatedAt or name, `sort[i][direction]` asc (default) or desc; ' +
      'without `sort`: createdAt desc. Ties are broken by id. `[]` when nothing matches.',
    tags,
    auth: 'jwt',
    schemas: { query: ListAvailableMcpsQuery },
    responses: { 200: { description: 'One page of entries', schema: Type.Array(AvailableMcpDto) } },
    handler: async ({ deps, query }) =>
      (
        await listActiveAvailableMcps(deps.db, {
          tags: query.tags,
          sort: query.sort ?? [{ field: 'createdAt', direction: 'desc' }],
          offset: (query.page - 1) * query.limit,
          limit: query.limit,
        })
      ).map(dto),
  }),
  defineRoute({
    method: 'POST',
    path: '/available-mcps',
    summary: 'Create a catalog entry',
    tags,
    auth: 'jwt',
    policy: { subject: SUBJECT, action: 'create' },
    schemas: { body: CreateAvailableMcpBody },
    status: 201,
    idempotent: true,
    responses: {
      201: { description: 'The new entry', schema: AvailableMcpDto },
      409: { description: 'Name taken', schema: ErrorBody },
      422: { description: 'variants missing or empty', schema: ErrorBody },
    },
    handler: async ({ deps, body }) => {
      const variants = body.variants as Variant[] | undefined;
      checkVariants(variants, true);
      return dto(
        await rethrowNameTaken(() =>
          insertAvailableMcp(deps.db, {
            name: body.name.trim(),
            description: body.description ?? '',
            logo: body.logo ?? '',
            tags: body.tags,
            variants: variants!,
          }),
        ),
      );
    },
  }),
  defineRoute({
    method: 'PATCH',
    path: '/available-mcps/:id',
    summary: 'Change the given fields of a catalog entry',
    description: 'Fields left out keep their values. A soft-deleted entry can be changed too (it stays inactive).',
    tags,
    auth: 'jwt',
    policy: { subject: SUBJECT, action: 'update' },
    schemas: { params: UuidParam('id'), body: UpdateAvailableMcpBody },
    responses: {
      200: { description: 'The updated entry', schema: AvailableMcpDto },
      404: { description: 'No entry with this id', schema: ErrorBody },
      409: { description: 'Name taken', schema: ErrorBody },
      422: { description: 'variants given empty', schema: ErrorBody },
    },
    handler: async ({ deps, params, body }) => {
      const variants = body.variants as Variant[] | undefined;
      checkVariants(variants, false);
      const row = await rethrowNameTaken(() => updateAvailableMcp(deps.db, params.id, { ...body, name: body.name?.trim(), variants }));
      if (!row) throw entryNotFound();
      return dto(row);
    },
  }),
  defineRoute({
    method: 'DELETE',
    path: '/available-mcps/:id',
    summary: 'Soft-delete a catalog entry',
    description: 'Sets isActive false; the entry stays stored and leaves the list. A repeat answers 200 again.',
    tags,
    auth: 'jwt',
    policy: { subject: SUBJECT, action: 'delete' },
    schemas: { params: UuidParam('id') },
    responses: {
      200: { description: 'The entry with isActive false', schema: AvailableMcpDto },
      404: { description: 'No entry with this id', schema: ErrorBody },
    },
    handler: async ({ deps, params }) => {
      const row = await deactivateAvailableMcp(deps.db, params.id);
      if (!row) throw entryNotFound();
      return dto(row);
    },
  }),
];
