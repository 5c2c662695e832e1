-- Logos uploaded for a catalog entry (PUT /api/available-mcps/:id/logo): one image per entry,
-- PNG, JPEG or WebP as recognised by its first bytes, at most 256 KB. Served at
-- /api/static/logos/<id>.<ext>; the entry's `logo` is set to logos/<id>.<ext> in the same
-- transaction. `sha256` is the image's digest, the strong validator (ETag) it is served with.
CREATE TABLE available_mcp_logo_images (
  available_mcp_id uuid PRIMARY KEY REFERENCES available_mcps (id) ON DELETE CASCADE,
  media_type text NOT NULL CHECK (media_type IN ('image/png', 'image/jpeg', 'image/webp')),
  image bytea NOT NULL CHECK (octet_length(image) BETWEEN 1 AND 262144),
  sha256 bytea NOT NULL CHECK (octet_length(sha256) = 32),
  updated_at timestamptz NOT NULL DEFAULT now()
);
