/** Hostile bodies of the security review (issue 37), shared by the fuzzer's attack cases and the tests. */

/** A protobuf field of wire type LEN: tag, varint length, bytes. */
export function protobufField(field: number, bytes: Buffer): Buffer {
  const length: number[] = [];
  let rest = bytes.length;
  while (rest > 0x7f) {
    length.push((rest & 0x7f) | 0x80);
    rest >>>= 7;
  }
  length.push(rest);
  return Buffer.concat([Buffer.from([(field << 3) | 2, ...length]), bytes]);
}

/**
 * `ExportTraceServiceRequest { resource_spans { scope_spans { spans x count } } }` with every span
 * empty: 2 bytes a span, so 4,194,296 spans inflate to 8 MiB from about 8 KB of gzip (issue 37).
 */
export function emptySpansRequest(count: number): Buffer {
  const spans = Buffer.alloc(count * 2);
  for (let i = 0; i < spans.length; i += 2) spans[i] = 0x12;
  return protobufField(1, protobufField(2, spans));
}

/** The same request in OTLP/JSON: `{}` x count. */
export function otlpJsonOfEmptySpans(count: number): Buffer {
  return Buffer.from(`{"resourceSpans":[{"scopeSpans":[{"spans":[${count ? '{}' + ',{}'.repeat(count - 1) : ''}]}]}]}`);
}

/** `[` x 524,284 then `]` x 524,284: 1 MiB of nesting that gzips to about 1 KB (issue 37). */
export const NESTING_BOMB_JSON = '['.repeat(524_284) + ']'.repeat(524_284);
