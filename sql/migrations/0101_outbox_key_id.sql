-- Outbox bodies are sealed with the service keyring (app/crypto/credentials.ts), like every
-- other secret at rest: the key id travels with the ciphertext so keys can rotate.
-- Rows sealed before this migration used a key derived from the JWT secret; none exist
-- outside development, so they are dropped rather than carried over.
DELETE FROM notification_outbox;
ALTER TABLE notification_outbox ADD COLUMN sealed_body_key_id text NOT NULL;
