-- Answers of creating POSTs sent with an `Idempotency-Key` header (app/core/idempotency.ts).
-- A row is written in the same transaction as the creation it answers, so it exists exactly
-- when the creation was committed: a client that lost the answer (even with COMMIT in flight)
-- and retries with the key gets this answer replayed instead of a second creation.
-- `fingerprint` is an HMAC of the request (method, path, body), so a body's secrets are not
-- stored; a key is honoured for 24 hours.
CREATE TABLE idempotency_keys (
  principal text NOT NULL,
  endpoint text NOT NULL,
  key text NOT NULL CHECK (key ~ '^[\x21-\x7e]{1,255}$'),
  fingerprint bytea NOT NULL CHECK (octet_length(fingerprint) = 32),
  status integer NOT NULL CHECK (status BETWEEN 200 AND 299),
  body json,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (principal, endpoint, key)
);
CREATE INDEX idempotency_keys_created_at_idx ON idempotency_keys (created_at);
