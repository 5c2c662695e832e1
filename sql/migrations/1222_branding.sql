-- An agency's brand (white label, docs/billing.md "Branding"): the product name, color and logo its
-- console, mail, widget and share page show, for itself and its businesses, and the host names its
-- console is served on. A host belongs to one agency at most (its primary key).

CREATE TABLE organization_brandings (
  organization_id uuid PRIMARY KEY REFERENCES organizations (id) ON DELETE CASCADE,
  product_name text NOT NULL CHECK (length(product_name) BETWEEN 1 AND 60),
  primary_color text NOT NULL CHECK (primary_color ~ '^#[0-9a-f]{6}$'),
  -- Shown by browsers only; the server never fetches it.
  logo_url text CHECK (logo_url IS NULL OR (logo_url LIKE 'https://%' AND length(logo_url) <= 2048)),
  support_email text CHECK (support_email IS NULL OR length(support_email) <= 254),
  updated_at timestamptz NOT NULL
);

CREATE TABLE organization_brand_hosts (
  host text PRIMARY KEY CHECK (host = lower(host) AND length(host) BETWEEN 1 AND 253),
  organization_id uuid NOT NULL REFERENCES organization_brandings (organization_id) ON DELETE CASCADE
);
CREATE INDEX organization_brand_hosts_organization_idx ON organization_brand_hosts (organization_id);
