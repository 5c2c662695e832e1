-- Whether strangers may register themselves as clients of an organization (POST
-- /api/identity/auth/client/register, a Google sign-in as a new client): off unless its staff turn
-- it on (PATCH /api/organization/my), since a client token opens verified web-channel sessions
-- (docs/identity.md, docs/channel.md).

ALTER TABLE organizations ADD COLUMN allow_client_registration boolean NOT NULL DEFAULT false;
