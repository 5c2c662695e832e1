/** Thrown for bytes that are not an ExportTraceServiceRequest. */
export class UndecodableRequest extends Error {
  override name = 'UndecodableRequest';
}

const truncated = () => new UndecodableRequest('the message ends inside a field');

/** Protobuf wire types (https://protobuf.dev/programming-guides/encoding/). */
export const VARINT = 0;
export const FIXED64 = 1;
export const LEN = 2;
export const FIXED32 = 5;

/**
 * Reads protobuf fields of one message, `bytes[start, end)`, without building anything: the
 * OTLP readers walk the request with it, jumping over every field they do not need in O(1).
 * Every read is bounded by `end`; a field that runs past it is an `UndecodableRequest`.
 */
export class WireReader {
  readonly #bytes: Uint8Array;
  #pos: number;
  readonly #end: number;
  /** The field number and wire type of the last `next()`. */
  field = 0;
  wireType = 0;
  /** The low and high 32 bits of the last `varint64()`. */
  low = 0;
  high = 0;

  constructor(bytes: Uint8Array, start = 0, end = bytes.length) {
    this.#bytes = bytes;
    this.#pos = start;
    this.#end = end;
  }

  /** Reads the next field's tag; false at the end of the message. */
  next(): boolean {
    if (this.#pos >= this.#end) return false;
    const tag = this.#varint32();
    this.field = tag >>> 3;
    this.wireType = tag & 7;
    if (this.field === 0) throw new UndecodableRequest('field number 0');
    return true;
  }

  /** Skips the value of the field just read. */
  skip(): void {
    switch (this.wireType) {
      case VARINT:
        this.varint64();
        return;
      case FIXED64:
        this.#advance(8);
        return;
      case LEN:
        this.#advance(this.#length());
        return;
      case FIXED32:
        this.#advance(4);
        return;
      default:
        throw new UndecodableRequest(`wire type ${this.wireType} is not used by OTLP`);
    }
  }

  /** A length-delimited value: a reader over its bytes (the reader moves past it). */
  message(): WireReader {
    const length = this.#length();
    const start = this.#pos;
    this.#advance(length);
    return new WireReader(this.#bytes, start, start + length);
  }

  /** A length-delimited value as bytes (a view, not a copy). */
  bytes(): Uint8Array {
    const length = this.#length();
    const start = this.#pos;
    this.#advance(length);
    return this.#bytes.subarray(start, start + length);
  }

  string(): string {
    const view = this.bytes();
    return Buffer.from(view.buffer, view.byteOffset, view.byteLength).toString('utf8');
  }

  /** A varint of up to 64 bits into `low` and `high`. */
  varint64(): void {
    let low = 0;
    let high = 0;
    for (let shift = 0; shift < 70; shift += 7) {
      if (this.#pos >= this.#end) throw truncated();
      const byte = this.#bytes[this.#pos++]!;
      if (shift < 28) low |= (byte & 0x7f) << shift;
      else if (shift === 28) {
        low |= (byte & 0x0f) << 28;
        high |= (byte & 0x7f) >>> 4;
      } else high |= (byte & 0x7f) << (shift - 32);
      if (byte < 0x80) {
        this.low = low >>> 0;
        this.high = high >>> 0;
        return;
      }
    }
    throw new UndecodableRequest('a varint longer than 10 bytes');
  }

  /** 8 bytes little-endian into `low` and `high`. */
  fixed64(): void {
    const start = this.#pos;
    this.#advance(8);
    const b = this.#bytes;
    this.low = (b[start]! | (b[start + 1]! << 8) | (b[start + 2]! << 16) | (b[start + 3]! << 24)) >>> 0;
    this.high = (b[start + 4]! | (b[start + 5]! << 8) | (b[start + 6]! << 16) | (b[start + 7]! << 24)) >>> 0;
  }

  double(): number {
    const start = this.#pos;
    this.#advance(8);
    return new DataView(this.#bytes.buffer, this.#bytes.byteOffset + start, 8).getFloat64(0, true);
  }

  #varint32(): number {
    this.varint64();
    if (this.high !== 0 || this.low > 0x7fffffff) throw new UndecodableRequest('a tag or length out of range');
    return this.low;
  }

  #length(): number {
    return this.#varint32();
  }

  #advance(count: number): void {
    if (count > this.#end - this.#pos) throw truncated();
    this.#pos += count;
  }
}

/**
 * Writes protobuf fields in the order called: the few the service answers with (the OTLP
 * response's `partial_success`). A proto3 field holding its default (0, '') is left out, as
 * proto3 encoders do; a message field is written even when empty, so it reads as set.
 */
export class WireWriter {
  readonly #bytes: number[] = [];

  /** A non-negative integer (int32 / int64 / uint64 up to 2^53 - 1) as a varint field. */
  varint(field: number, value: number): this {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`a varint field takes a non-negative safe integer, not ${value}`);
    if (value === 0) return this;
    this.#tag(field, VARINT);
    this.#varint(value);
    return this;
  }

  /** A UTF-8 string field. */
  string(field: number, text: string): this {
    if (text === '') return this;
    return this.#delimited(field, Buffer.from(text, 'utf8'));
  }

  /** An embedded message field, written by `write` into its own writer. */
  message(field: number, write: (inner: WireWriter) => void): this {
    const inner = new WireWriter();
    write(inner);
    return this.#delimited(field, inner.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }

  #delimited(field: number, bytes: Uint8Array): this {
    this.#tag(field, LEN);
    this.#varint(bytes.length);
    for (const byte of bytes) this.#bytes.push(byte);
    return this;
  }

  #tag(field: number, wireType: number): void {
    this.#varint(field * 8 + wireType);
  }

  #varint(value: number): void {
    let rest = value;
    while (rest >= 0x80) {
      this.#bytes.push((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.#bytes.push(rest);
  }
}
