import fc from 'fast-check';
import qs from 'qs';
import type { Operation } from './document.ts';
import { collectionOf, type IdPools } from './id-pools.ts';
import type { FuzzRequest } from './request.ts';
import { arbitraryOf } from './schema-arbitrary.ts';

/** The decoded parts of a request before it is written as bytes. */
export type Parts = { params: Record<string, string>; query: Record<string, unknown>; body?: unknown };

/** A caller: its token, and the organization it acts in (`x-org-id`) when not its own (agency staff in a business). */
export type Caller = { name: string; token?: string; actingIn?: string };

const ZONES = ['UTC', 'Europe/Madrid', 'America/New_York', 'Asia/Kolkata', 'Australia/Lord_Howe', 'Pacific/Chatham'];

/** A window `from < to` of one hour to 400 days, in the seeded data's years. */
const windowArbitrary = fc
  .tuple(
    fc.date({ min: new Date('2025-06-01T00:00:00Z'), max: new Date('2027-01-01T00:00:00Z'), noInvalidDate: true }),
    fc.integer({ min: 1, max: 400 * 24 }),
  )
  .map(([from, hours]) => ({ from: from.toISOString(), to: new Date(from.getTime() + hours * 3_600_000).toISOString() }));

/** Requests that should pass validation (best effort), for `caller` on `operation`. */
export function validParts(operation: Operation, caller: Caller, pools: IdPools): fc.Arbitrary<Parts> {
  const tag = caller.name.replace(/@.*/, '').replace(/\W+/g, '') + (caller.name.split('@')[1]?.split('.')[0] ?? '');
  // A public route acts for nobody: its ids are chosen as an anonymous caller's would be, so a
  // public registration never lands in the protected agency (legitimately changing it).
  const idsOf = operation.secured ? caller.name : 'anonymous';
  const hintsFor = (collection: string | undefined) => ({
    uuid: (name: string) => pools.arbitrary(idsOf, collection, name),
    known: (name: string) => pools.ids(caller.name, name),
    tag,
  });
  const params: Record<string, fc.Arbitrary<unknown>> = {};
  const query: Record<string, fc.Arbitrary<unknown>> = {};
  const optionalQuery: string[] = [];
  for (const parameter of operation.parameters) {
    // Header parameters (Idempotency-Key) are not generated: a replay would hide the create's answer.
    if (parameter.in === 'header') continue;
    if (parameter.in === 'path') {
      params[parameter.name] = arbitraryOf(parameter.schema, hintsFor(collectionOf(operation.path, parameter.name)), parameter.name);
    } else if (parameter.name === 'timezone') {
      query.timezone = fc.constantFrom(...ZONES);
      optionalQuery.push('timezone');
    } else if (parameter.name !== 'from' && parameter.name !== 'to') {
      query[parameter.name] = arbitraryOf(parameter.schema, hintsFor(undefined), parameter.name);
      if (!parameter.required) optionalQuery.push(parameter.name);
    }
  }
  const hasWindow = operation.parameters.some((parameter) => parameter.in === 'query' && parameter.name === 'from');
  const body = operation.body ? arbitraryOf(operation.body, hintsFor(undefined)) : fc.constant(undefined);
  return fc
    .record({
      params: fc.record(params) as fc.Arbitrary<Record<string, string>>,
      query: fc.record(query, { requiredKeys: Object.keys(query).filter((key) => !optionalQuery.includes(key)) }),
      window: hasWindow ? windowArbitrary : fc.constant(undefined),
      body,
    })
    .map(({ params: p, query: q, window, body: b }) => ({ params: p, query: { ...window, ...q }, body: b }));
}

/** Writes parts as a request: path ids percent-encoded, query in qs's bracket form, JSON body. */
export function assemble(operation: Operation, caller: Caller, parts: Parts, kind: string): FuzzRequest {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_match, name: string) => encodeURIComponent(parts.params[name] ?? ''));
  const search = qs.stringify(parts.query, { encodeValuesOnly: true, arrayFormat: 'indices' });
  const headers: Record<string, string> = {};
  if (caller.token) headers.authorization = `Bearer ${caller.token}`;
  if (caller.actingIn) headers['x-org-id'] = caller.actingIn;
  let body: Buffer | undefined;
  if (parts.body !== undefined) {
    body = Buffer.from(JSON.stringify(parts.body), 'utf8');
    headers['content-type'] = 'application/json';
  }
  return {
    operation: operation.key,
    kind,
    principal: caller.name,
    method: operation.method,
    target: search ? `${path}?${search}` : path,
    headers,
    body,
  };
}
