/**
 * A handler's answer in a binary encoding (an OTLP protobuf message): sent as these bytes with
 * this content type. The JSON answers of the same route are what its schema describes and checks.
 */
export class BinaryAnswer {
  readonly contentType: string;
  readonly bytes: Uint8Array;
  constructor(contentType: string, bytes: Uint8Array) {
    this.contentType = contentType;
    this.bytes = bytes;
  }
}
