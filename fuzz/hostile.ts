import fc from 'fast-check';
import type { Operation } from './document.ts';
import type { FuzzRequest } from './request.ts';
import {
  BAD_DATES,
  FAR_DATES,
  HOSTILE_PATH_SEGMENTS,
  HOSTILE_QUERY_BYTES,
  NON_FINITE_TEXT,
  ODD_BODIES,
  ODD_METHODS,
  ODD_ZONES,
  RAW_NUMBERS,
  WRONG_CONTENT_TYPES,
  malformedHttp,
} from './hostile-values.ts';
import type { Parts } from './valid.ts';

type Mutation = fc.Arbitrary<(request: FuzzRequest) => FuzzRequest>;

/** Marks a value to be written into the JSON text as it is (a raw number, an escape, raw bytes). */
const RAW = (text: string) => `\u0001RAW:${text}\u0001`;
const INVALID_UTF8 = '\u0002BYTES\u0002';

/** JSON text of `value`, with RAW markers expanded and invalid-UTF-8 markers turned into bytes. */
export function jsonBytes(value: unknown): Buffer {
  const text = JSON.stringify(value).replace(
    /"\\u0001RAW:((?:[^\\]|\\.)*?)\\u0001"/g,
    (_m, raw: string) => JSON.parse(`"${raw}"`) as string,
  );
  const pieces = text.split(JSON.stringify(INVALID_UTF8).slice(1, -1));
  return Buffer.concat(
    pieces.flatMap((piece, index) =>
      index ? [Buffer.from([0xff, 0xc3, 0x28, 0xed, 0xa0, 0x80]), Buffer.from(piece)] : [Buffer.from(piece)],
    ),
  );
}

const deepArray = (depth: number) => `${'['.repeat(depth)}${']'.repeat(depth)}`;

function bodyMutations(parts: Parts): Array<[string, Mutation]> {
  const body = (parts.body && typeof parts.body === 'object' && !Array.isArray(parts.body) ? parts.body : {}) as Record<string, unknown>;
  const keys = Object.keys(body).length ? Object.keys(body) : ['name'];
  const withField = (label: string, values: fc.Arbitrary<unknown>): [string, Mutation] => [
    label,
    fc
      .tuple(fc.constantFrom(...keys), values)
      .map(([key, value]) => (request: FuzzRequest) => ({ ...request, body: jsonBytes({ ...body, [key]: value }) })),
  ];
  const stringAt = (text: fc.Arbitrary<string>) =>
    fc.tuple(fc.constantFrom(...keys), text).map(([key, value]) => {
      const current = typeof body[key] === 'string' ? (body[key] as string) : 'x';
      return [key, value.replace('$', current)] as const;
    });
  return [
    withField('body: wrong type', fc.constantFrom<unknown>(123, -1, true, null, [], {}, 'text', [1, 2], { a: 1 })),
    [
      'body: missing field',
      fc.constantFrom(...keys).map((key) => (request: FuzzRequest) => ({
        ...request,
        body: jsonBytes(Object.fromEntries(Object.entries(body).filter(([k]) => k !== key))),
      })),
    ],
    [
      'body: extra field',
      fc
        .constantFrom('fuzzExtra', 'enabledTools', 'id', 'agencyId', 'isAdmin')
        .map((key) => (request: FuzzRequest) => ({ ...request, body: jsonBytes({ ...body, [key]: 'x' }) })),
    ],
    withField('body: 100k string', fc.constant('x'.repeat(100_000))),
    withField('body: over the size limit', fc.constant('y'.repeat(200_000))),
    [
      'body: NUL',
      stringAt(fc.constantFrom('\u0000', '$\u0000', '\u0000$')).map(([key, value]) => (request: FuzzRequest) => ({
        ...request,
        body: jsonBytes({ ...body, [key]: value }),
      })),
    ],
    [
      'body: lone surrogate',
      stringAt(fc.constantFrom('\\ud800', '$\\udc00', '\\udbff$')).map(([key, value]) => (request: FuzzRequest) => ({
        ...request,
        body: jsonBytes({ ...body, [key]: RAW(`"${value.replace(/"/g, '')}"`) }),
      })),
    ],
    [
      'body: invalid UTF-8',
      stringAt(fc.constant(`$${INVALID_UTF8}`)).map(([key, value]) => (request: FuzzRequest) => ({
        ...request,
        body: jsonBytes({ ...body, [key]: value }),
      })),
    ],
    [
      'body: emoji',
      stringAt(fc.constantFrom('🧪$', '$👩🏽‍💻', '\u202e$', 'ﷺ$𝕏')).map(([key, value]) => (request: FuzzRequest) => ({
        ...request,
        body: jsonBytes({ ...body, [key]: value }),
      })),
    ],
    withField('body: JSON nested 5,000 deep', fc.constant(RAW(deepArray(5_000)))),
    [
      'body: __proto__ and constructor keys',
      fc.constantFrom('__proto__', 'constructor', 'prototype').map((key) => (request: FuzzRequest) => ({
        ...request,
        body: Buffer.from(`{"${key}":{"polluted":true,"isAdmin":true},${JSON.stringify(body).slice(1)}`.replace(/,}$/, '}')),
      })),
    ],
    withField('body: odd numbers', fc.constantFrom(...RAW_NUMBERS).map(RAW)),
    withField('body: non-finite text', fc.constantFrom(...NON_FINITE_TEXT)),
    [
      'body: odd JSON text',
      fc.constantFrom(...ODD_BODIES).map((text) => (request: FuzzRequest) => ({ ...request, body: Buffer.from(text) })),
    ],
    [
      'body: wrong content type',
      fc
        .constantFrom(...WRONG_CONTENT_TYPES)
        .map((type) => (request: FuzzRequest) => ({ ...request, headers: { ...request.headers, 'content-type': type } })),
    ],
    ['body: none', fc.constant((request: FuzzRequest) => ({ ...request, body: undefined, headers: withoutContentType(request.headers) }))],
  ];
}

const withoutContentType = (headers: Record<string, string>) =>
  Object.fromEntries(Object.entries(headers).filter(([name]) => name !== 'content-type'));

/** Replaces (or adds) query parameter `name` by already-encoded `value`, leaving the others as they are. */
function setQuery(target: string, name: string, value: string, mode: 'replace' | 'append' = 'replace'): string {
  const [path, search = ''] = target.split('?');
  const kept =
    mode === 'append'
      ? search.split('&').filter(Boolean)
      : search.split('&').filter((pair) => pair && !pair.startsWith(`${name}=`) && !pair.startsWith(`${encodeURIComponent(name)}%5B`));
  return `${path}?${[...kept, `${name}=${value}`].join('&')}`;
}

function queryMutations(operation: Operation): Array<[string, Mutation]> {
  const query = operation.parameters.filter((parameter) => parameter.in === 'query');
  const names = query.length ? query.map((parameter) => parameter.name) : ['page'];
  const numeric = query
    .filter((parameter) => ['integer', 'number'].includes(parameter.schema.type as string))
    .map((parameter) => parameter.name);
  const at = (label: string, chosen: string[], values: fc.Arbitrary<string>): [string, Mutation] => [
    label,
    fc
      .tuple(fc.constantFrom(...chosen), values)
      .map(([name, value]) => (request: FuzzRequest) => ({ ...request, target: setQuery(request.target, name, value) })),
  ];
  const mutations: Array<[string, Mutation]> = [
    at('query: non-finite numbers', numeric.length ? numeric : names, fc.constantFrom(...NON_FINITE_TEXT.map(encodeURIComponent))),
    at('query: hostile bytes', names, fc.constantFrom(...HOSTILE_QUERY_BYTES)),
    [
      'query: repeated parameter',
      fc.constantFrom(...names).map((name) => (request: FuzzRequest) => ({
        ...request,
        target: setQuery(setQuery(request.target, name, '1', 'append'), name, '2', 'append'),
      })),
    ],
    [
      'query: array and object forms',
      fc
        .tuple(
          fc.constantFrom(...names),
          fc.constantFrom('%5B%5D=1', '%5B0%5D=1&X%5B1%5D=2', '%5Ba%5D=1', '%5B0%5D%5B0%5D%5B0%5D%5B0%5D=1', '%5B999999%5D=1'),
        )
        .map(([name, suffix]) => (request: FuzzRequest) => ({
          ...request,
          target: `${setQuery(request.target, name, 'x').replace(new RegExp(`&?${name}=x$`), '')}${request.target.includes('?') ? '&' : '?'}${name}${suffix.replace('X', name)}`,
        })),
    ],
    [
      'query: unknown parameter',
      fc
        .constantFrom('fuzzUnknown=1', '__proto__%5Bpolluted%5D=1', 'constructor%5Bprototype%5D=1', 'a'.repeat(300) + '=1')
        .map((pair) => (request: FuzzRequest) => ({
          ...request,
          target: `${request.target}${request.target.includes('?') ? '&' : '?'}${pair}`,
        })),
    ],
  ];
  if (names.includes('from') && names.includes('to')) {
    const window = (label: string, pairs: fc.Arbitrary<[string, string]>): [string, Mutation] => [
      label,
      pairs.map(([from, to]) => (request: FuzzRequest) => ({
        ...request,
        target: setQuery(setQuery(request.target, 'from', encodeURIComponent(from)), 'to', encodeURIComponent(to)),
      })),
    ];
    mutations.push(
      window('query: far dates', fc.tuple(fc.constantFrom(...FAR_DATES), fc.constantFrom(...FAR_DATES))),
      window('query: from after to', fc.constant(['2026-11-20T00:00:00.000Z', '2026-11-01T00:00:00.000Z'])),
      window('query: from equals to', fc.constant(['2026-11-20T00:00:00.000Z', '2026-11-20T00:00:00.000Z'])),
      window(
        'query: 100-year window',
        fc.constantFrom<[string, string]>(
          ['1950-01-01T00:00:00.000Z', '2050-01-01T00:00:00.000Z'],
          ['2000-01-01T00:00:00.000Z', '2100-01-01T00:00:00.000Z'],
        ),
      ),
      window('query: bad dates', fc.tuple(fc.constantFrom(...BAD_DATES), fc.constantFrom(...BAD_DATES, '2026-11-20T00:00:00.000Z'))),
    );
  }
  if (names.includes('timezone'))
    mutations.push(at('query: odd time zones', ['timezone'], fc.constantFrom(...ODD_ZONES.map(encodeURIComponent))));
  return mutations;
}

function pathMutations(operation: Operation): Array<[string, Mutation]> {
  const names = [...operation.path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]!);
  if (!names.length) return [];
  return [
    [
      'path: not an id',
      fc.tuple(fc.nat(names.length - 1), fc.constantFrom(...HOSTILE_PATH_SEGMENTS)).map(([index, segment]) => (request: FuzzRequest) => {
        const template = operation.path.split('/');
        const position = template.indexOf(`{${names[index]}}`);
        const [path, search] = request.target.split('?');
        const actual = path!.split('/');
        actual[position] = segment;
        return { ...request, target: search === undefined ? actual.join('/') : `${actual.join('/')}?${search}` };
      }),
    ],
  ];
}

function authMutations(): Array<[string, Mutation]> {
  const none = `${Buffer.from('{"alg":"none","typ":"JWT"}').toString('base64url')}.${Buffer.from('{"sub":"x","agencyId":"x","type":"user","exp":9999999999}').toString('base64url')}.`;
  return [
    [
      'auth: odd token',
      fc
        .constantFrom(
          'Bearer garbage',
          `Bearer ${none}`,
          'Basic b3duZXJAZGVtby50ZXN0OmRlbW8tcGFzc3dvcmQtMQ==',
          'Bearer ',
          'bearer x.y.z',
          `Bearer ${'a'.repeat(8_000)}`,
        )
        .map((value) => (request: FuzzRequest) => ({ ...request, headers: { ...request.headers, authorization: value } })),
    ],
  ];
}

function methodMutations(): Array<[string, Mutation]> {
  return [
    [
      'method: unusual',
      fc.constantFrom(...ODD_METHODS).map((method) => (request: FuzzRequest) => ({
        ...request,
        method,
        body: method === 'GET' || method === 'HEAD' ? undefined : request.body,
      })),
    ],
  ];
}

function rawMutations(): Array<[string, Mutation]> {
  return [
    [
      'raw: malformed HTTP',
      fc.nat(10).map((index) => (request: FuzzRequest) => {
        const templates = malformedHttp(
          request.target,
          request.headers.authorization ?? 'Bearer fuzz-raw-secret',
          '{"password":"fuzz-raw-password"}',
        );
        return { ...request, operation: 'raw HTTP', raw: Buffer.from(templates[index % templates.length]!, 'latin1') };
      }),
    ],
  ];
}

/** Every hostile mutation that applies to `operation`, labelled; one is drawn per hostile request. */
export function hostileMutations(operation: Operation, parts: Parts): Array<[string, Mutation]> {
  return [
    ...(operation.body
      ? bodyMutations(parts)
      : [
          [
            'body: unexpected',
            fc.constantFrom(...ODD_BODIES, '{"a":1}').map((text) => (request: FuzzRequest) => ({
              ...request,
              body: Buffer.from(text),
              headers: { ...request.headers, 'content-type': 'application/json' },
            })),
          ] as [string, Mutation],
        ]),
    ...queryMutations(operation),
    ...pathMutations(operation),
    ...(operation.secured ? authMutations() : []),
    ...methodMutations(),
    ...rawMutations(),
  ];
}
