// The Redis Cluster hash slot of a key, as the server computes it (cluster.c keyHashSlot): CRC16 (XMODEM:
// polynomial 0x1021, initial value 0, no reflection) of the key's UTF-8 bytes modulo 16 384, where a key
// holding `{...}` with at least one byte between the first `{` and the next `}` hashes that part only.

const TABLE = new Uint16Array(256);
for (let byte = 0; byte < 256; byte++) {
  let crc = byte << 8;
  for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  TABLE[byte] = crc;
}

const encoder = new TextEncoder();

function crc16(bytes: Uint8Array, from: number, to: number): number {
  let crc = 0;
  for (let i = from; i < to; i++) crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ (bytes[i] as number)) & 0xff] as number);
  return crc;
}

/** The hash slot (0-16 383) Redis Cluster assigns to `key`. */
export function keySlot(key: string): number {
  // ASCII keys (the usual case) are hashed from the string itself: no encoding, no allocation.
  const open = key.indexOf('{');
  let from = 0;
  let to = key.length;
  if (open !== -1) {
    const close = key.indexOf('}', open + 1);
    if (close > open + 1) {
      from = open + 1;
      to = close;
    }
  }
  let crc = 0;
  for (let i = from; i < to; i++) {
    const code = key.charCodeAt(i);
    if (code > 0x7f) return slotOfBytes(encoder.encode(key));
    crc = ((crc << 8) & 0xffff) ^ (TABLE[((crc >> 8) ^ code) & 0xff] as number);
  }
  return crc & 0x3fff;
}

function slotOfBytes(bytes: Uint8Array): number {
  const open = bytes.indexOf(0x7b);
  if (open !== -1) {
    const close = bytes.indexOf(0x7d, open + 1);
    if (close > open + 1) return crc16(bytes, open + 1, close) & 0x3fff;
  }
  return crc16(bytes, 0, bytes.length) & 0x3fff;
}
