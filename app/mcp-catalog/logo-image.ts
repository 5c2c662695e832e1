import type { LogoMediaType } from '../../sql/available-mcp-logos.ts';

/** Largest uploaded logo, bytes (256 KB). */
export const LOGO_IMAGE_MAX_BYTES = 256 * 1024;

export type LogoImageKind = { mediaType: LogoMediaType; extension: 'png' | 'jpg' | 'webp' };

/** File extension of an uploaded logo -> its media type (the name it is served under says which). */
export const UPLOADED_LOGO_KINDS: Record<string, LogoImageKind> = {
  png: { mediaType: 'image/png', extension: 'png' },
  jpg: { mediaType: 'image/jpeg', extension: 'jpg' },
  webp: { mediaType: 'image/webp', extension: 'webp' },
};

const startsWith = (bytes: Buffer, offset: number, signature: readonly number[]) =>
  bytes.length >= offset + signature.length && signature.every((byte, index) => bytes[offset + index] === byte);

const ascii = (text: string) => [...text].map((char) => char.charCodeAt(0));

/**
 * What an uploaded image is, by its leading bytes (the signatures of the PNG spec §5.2, JPEG's
 * SOI marker followed by a marker, and RIFF....WEBP), never by the Content-Type a client sent.
 * Anything else, SVG included (it can carry script), is undefined.
 */
export function sniffLogoImage(bytes: Buffer): LogoImageKind | undefined {
  if (startsWith(bytes, 0, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return UPLOADED_LOGO_KINDS.png;
  if (startsWith(bytes, 0, [0xff, 0xd8, 0xff])) return UPLOADED_LOGO_KINDS.jpg;
  if (startsWith(bytes, 0, ascii('RIFF')) && startsWith(bytes, 8, ascii('WEBP'))) return UPLOADED_LOGO_KINDS.webp;
  return undefined;
}
