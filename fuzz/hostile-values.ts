/** The catalogue of hostile values and bytes the fuzzer plants (issue 12's list). */

/** Written into JSON text as they are (not as JSON strings): numbers JSON.parse turns odd. */
export const RAW_NUMBERS = ['1e309', '-1e309', '-0', '9007199254740993', '-9007199254740993', '1e-400', '0.1e1', '1E2'];

/** Strings where numbers go. */
export const NON_FINITE_TEXT = ['Infinity', '-Infinity', 'NaN', '1e309', '-0', '9007199254740993', '0x10', ' 1', '1.5', '', '1_000', '١'];

/** Query values (already percent-encoded) that are hostile as bytes. */
export const HOSTILE_QUERY_BYTES = [
  '%00',
  'a%00b',
  '%FF',
  '%C3%28',
  '%ED%A0%80',
  '%F0%9F%A7%AA',
  '%E2%80%AE',
  '%',
  '%%',
  '%2',
  `${'x'.repeat(10_000)}`,
];

/** Path segments (already percent-encoded) that are not ids. */
export const HOSTILE_PATH_SEGMENTS = [
  'not-a-uuid',
  '1',
  '..',
  '%2e%2e',
  '%00',
  '%FF',
  '%ED%A0%80',
  'x'.repeat(3_000),
  '123e4567-e89b-42d3-a456-426614174000',
  '01900000-0000-7000-8000-00000000020G',
  '01900000-0000-7000-8000-000000000202%00',
  'null',
  '%F0%9F%A7%AA',
];

export const FAR_DATES = [
  '0001-01-01T00:00:00.000Z',
  '9999-12-31T23:59:59.999Z',
  '1970-01-01T00:00:00.000Z',
  '2262-04-11T23:47:16.854Z',
  '+275760-09-13T00:00:00.000Z',
  '-000001-01-01T00:00:00.000Z',
];
export const BAD_DATES = [
  '2026-02-30T00:00:00.000Z',
  '2026-13-01T00:00:00Z',
  'yesterday',
  '2026-01-01',
  '2026-01-01T25:00:00Z',
  '1700000000000',
  '2026-01-01T00:00:00.000+14:00',
  '2026-01-01T00:00:00.000-12:00',
];
export const ODD_ZONES = [
  'Mars/Phobos',
  '+05:30',
  'UTC+3',
  'Etc/GMT-14',
  'Etc/GMT+12',
  'GMT',
  'utc',
  'europe/madrid',
  '../../etc/passwd',
  'America/Argentina/ComodRivadavia',
  'EST5EDT',
  ' UTC',
  'x'.repeat(64),
];

export const ODD_METHODS = [
  'TRACE',
  'PROPFIND',
  'PROPPATCH',
  'MKCOL',
  'COPY',
  'MOVE',
  'LOCK',
  'UNLOCK',
  'SEARCH',
  'PURGE',
  'REPORT',
  'MERGE',
  'PUT',
  'PATCH',
  'DELETE',
  'POST',
  'GET',
  'OPTIONS',
  'HEAD',
  'CONNECT',
];

export const WRONG_CONTENT_TYPES = [
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=fuzz',
  'application/xml',
  'application/json; charset=latin1',
  'application/vnd.api+json',
  'application/json, text/plain',
];

export const ODD_BODIES = [
  '',
  'not json{',
  '{"a":',
  '[]',
  'null',
  '"text"',
  '42',
  '{}{}',
  '\ufeff{}',
  '{"a":1,"a":2}',
  '{"__proto__":{"polluted":true}}',
  '{"constructor":{"prototype":{"polluted":true}}}',
];

/** Malformed HTTP/1.1 request heads (Node's parser refuses them before the app). */
export function malformedHttp(target: string, authorization: string, body: string): string[] {
  const secrets = `Authorization: ${authorization}\r\nCookie: session=fuzz-cookie-secret\r\n`;
  return [
    `GET ${target} HTTP/1.1\r\nHost: x\r\n${secrets}Bad Header Line\r\n\r\n`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\n${secrets}Content-Length: ${body.length}\r\nTransfer-Encoding: chunked\r\n\r\n${body}`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\n${secrets}Content-Length: -1\r\n\r\n${body}`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\n${secrets}Transfer-Encoding: chunked\r\n\r\nzz\r\n${body}\r\n0\r\n\r\n`,
    `FROB ${target} HTTP/1.1\r\nHost: x\r\n${secrets}\r\n`,
    `GET ${target} HTTP/1.1\r\nHost: x\r\n${secrets}X-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    `GET ${target} HTTP/9.9\r\nHost: x\r\n${secrets}\r\n`,
    `GET ${target}\u0000 HTTP/1.1\r\nHost: x\r\n${secrets}\r\n`,
    `GET ${target} HTTP/1.1\r\nHost: x\r\n${secrets}X-Nul: a\u0000b\r\n\r\n`,
    `GET ${target} HTTP/1.1\nHost: x\n${secrets.replace(/\r\n/g, '\n')}\n`,
    `POST ${target} HTTP/1.1\r\nHost: x\r\n${secrets}Content-Length: 5\r\nContent-Length: 6\r\n\r\n${body}`,
  ];
}
