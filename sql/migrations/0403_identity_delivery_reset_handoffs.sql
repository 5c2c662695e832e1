-- Issue 16: outbox delivery state, password-reset codes, Google sign-in hand-offs.

-- Delivery state of each outbox message (ADR 0080). A message is `pending` until a worker
-- delivers it (`sent`) or gives up (`dead`). `next_attempt_at` is when a worker may claim it:
-- a claim pushes it one lease ahead, so a worker that dies mid-send leaves the message to be
-- claimed again once the lease ends (at-least-once; the id is the idempotency key).
ALTER TABLE notification_outbox
  ADD COLUMN status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'sent', 'dead')),
  ADD COLUMN attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
  ADD COLUMN next_attempt_at timestamptz NOT NULL DEFAULT now(),
  ADD COLUMN last_error text,
  ADD COLUMN dead_at timestamptz;
UPDATE notification_outbox SET status = 'sent' WHERE sent_at IS NOT NULL;
DROP INDEX IF EXISTS notification_outbox_pending_idx;
CREATE INDEX notification_outbox_due_idx ON notification_outbox (next_attempt_at) WHERE status = 'pending';

-- Password-reset codes live beside email-verification codes (same hashing, expiry, attempts).
ALTER TABLE verification_codes DROP CONSTRAINT verification_codes_purpose_check;
ALTER TABLE verification_codes ADD CONSTRAINT verification_codes_purpose_check
  CHECK (purpose IN ('email_verification', 'password_reset'));

-- A browser that finished a Google sign-in lands on the front-end with a one-time code; the
-- front-end trades it, with the `state` it started the sign-in with, for a token pair (ADR 0082).
-- Only hashes are stored.
CREATE TABLE sign_in_handoffs (
  code_hash bytea PRIMARY KEY,
  state_hash bytea NOT NULL,
  user_id uuid NOT NULL REFERENCES users (id) ON DELETE CASCADE,
  expires_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX sign_in_handoffs_expires_at_idx ON sign_in_handoffs (expires_at);
