import { sql, type CommonQueryMethods } from 'slonik';
import { z } from 'zod';

export type LogoMediaType = 'image/png' | 'image/jpeg' | 'image/webp';

const LogoImageRow = z.strictObject({
  mediaType: z.enum(['image/png', 'image/jpeg', 'image/webp']),
  image: z.instanceof(Buffer),
  sha256: z.instanceof(Buffer),
});

/** Stores (or replaces) the uploaded logo of an entry that exists; run it in the transaction that sets the entry's `logo`. */
export async function saveLogoImage(
  db: CommonQueryMethods,
  entryId: string,
  image: { mediaType: LogoMediaType; bytes: Buffer; sha256: Buffer },
) {
  await db.query(sql.unsafe`
    INSERT INTO available_mcp_logo_images (available_mcp_id, media_type, image, sha256)
    VALUES (${entryId}, ${image.mediaType}, ${sql.binary(image.bytes)}, ${sql.binary(image.sha256)})
    ON CONFLICT (available_mcp_id) DO UPDATE
    SET media_type = EXCLUDED.media_type, image = EXCLUDED.image, sha256 = EXCLUDED.sha256, updated_at = now()`);
}

/** The uploaded logo of an entry, if it has one of this media type. */
export function findLogoImage(db: CommonQueryMethods, entryId: string, mediaType: LogoMediaType) {
  return db.maybeOne(sql.type(LogoImageRow)`
    SELECT media_type AS "mediaType", image, sha256
    FROM available_mcp_logo_images
    WHERE available_mcp_id = ${entryId} AND media_type = ${mediaType}`);
}
