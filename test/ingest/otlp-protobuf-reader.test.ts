import test from 'ava';
import { decodeTraceSpans, encodeTraceResponse } from '../../app/otlp/protobuf.ts';
import { traceService } from '../helpers/otlp-proto.ts';

const { request } = traceService();
const encode = (message: object) => request.encode(request.fromObject(message)).finish();
const attribute = (key: string, value: object) => ({ key, value });

test('protobuf spans are read with hex ids, exact 64-bit times and the scalar attributes', (t) => {
  const [span] = decodeTraceSpans(
    encode({
      resourceSpans: [
        {
          resource: { attributes: [attribute('agents.usage.source', { stringValue: 'byok' })] },
          scopeSpans: [
            {
              spans: [
                {
                  traceId: Buffer.from('0123456789abcdef0123456789abcdef', 'hex'),
                  spanId: Buffer.from('fedcba9876543210', 'hex'),
                  startTimeUnixNano: '1764000000123456789',
                  endTimeUnixNano: '18446744073709551615',
                  attributes: [
                    attribute('text', { stringValue: '' }),
                    attribute('flag', { boolValue: false }),
                    attribute('negative', { intValue: -42 }),
                    attribute('largest safe', { intValue: '9007199254740991' }),
                    attribute('unsafe', { intValue: '9007199254740993' }),
                    attribute('ratio', { doubleValue: 0.5 }),
                    attribute('list', { arrayValue: { values: [{ stringValue: 'x' }] } }),
                    attribute('unset', {}),
                  ],
                },
              ],
            },
          ],
        },
      ],
    }),
  );
  t.is(span!.traceId, '0123456789abcdef0123456789abcdef');
  t.is(span!.spanId, 'fedcba9876543210');
  t.is(span!.startTimeUnixNano, 1764000000123456789n);
  t.is(span!.endTimeUnixNano, 18446744073709551615n);
  t.deepEqual(
    [...span!.attributes],
    [
      ['text', ''],
      ['flag', false],
      ['negative', -42],
      ['largest safe', 9007199254740991],
      ['ratio', 0.5],
    ],
  );
  t.deepEqual([...span!.resourceAttributes], [['agents.usage.source', 'byok']]);
});

test('ids of the wrong length or all zeros and times never sent read as undefined', (t) => {
  const spans = decodeTraceSpans(
    encode({
      resourceSpans: [{ scopeSpans: [{ spans: [{ traceId: Buffer.alloc(16), spanId: Buffer.alloc(7, 1), endTimeUnixNano: '5' }, {}] }] }],
    }),
  );
  t.deepEqual(
    spans.map((span) => [span.traceId, span.spanId, span.startTimeUnixNano, span.endTimeUnixNano]),
    [
      [undefined, undefined, undefined, 5n],
      [undefined, undefined, undefined, undefined],
    ],
  );
});

test('bytes that are not an ExportTraceServiceRequest are refused', (t) => {
  t.throws(() => decodeTraceSpans(Buffer.from([0x0a, 0xff, 0xff])), { name: 'UndecodableRequest' });
});

test('the ExportTraceServiceResponse the service writes reads back in a full protobuf implementation as the same partial success', (t) => {
  const { response } = traceService();
  const read = (partialSuccess: { rejectedSpans: number; errorMessage: string }) =>
    response.toObject(response.decode(encodeTraceResponse(partialSuccess)), { defaults: true, longs: Number });
  for (const partialSuccess of [
    { rejectedSpans: 0, errorMessage: '' },
    { rejectedSpans: 2, errorMessage: '2 usage span(s) rejected; first: gen_ai.response.model or gen_ai.request.model is missing' },
    { rejectedSpans: 10_000, errorMessage: 'é ✓ 😀 and a long one '.repeat(20) },
    { rejectedSpans: Number.MAX_SAFE_INTEGER, errorMessage: 'x' },
  ])
    t.deepEqual(read(partialSuccess), { partialSuccess });
  // Nothing rejected: the field is still set (an empty message), as OTLP asks of a server answering.
  t.deepEqual([...encodeTraceResponse({ rejectedSpans: 0, errorMessage: '' })], [0x0a, 0x00]);
  t.throws(() => encodeTraceResponse({ rejectedSpans: -1, errorMessage: '' }), { instanceOf: RangeError });
});
