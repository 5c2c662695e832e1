-- Plans with a price, a usage markup and limits; a business on one plan, with the history of its
-- plans (which plan a month's bill uses); the monthly count of a business's end-user messages; and
-- a plan's monthly usage limit held by the same reservation an enforced budget uses
-- (docs/billing.md).

-- Money is exact: the price in integer cents, the usage limit in numeric dollars (2 decimals).
ALTER TABLE plans
  ADD COLUMN price_cents integer NOT NULL DEFAULT 0 CHECK (price_cents BETWEEN 0 AND 100000000),
  ADD COLUMN usage_markup_percent integer NOT NULL DEFAULT 0 CHECK (usage_markup_percent BETWEEN 0 AND 1000),
  ADD COLUMN max_agents integer CHECK (max_agents IS NULL OR max_agents > 0),
  ADD COLUMN max_end_user_messages_per_month integer
    CHECK (max_end_user_messages_per_month IS NULL OR max_end_user_messages_per_month > 0),
  ADD COLUMN max_documents_mb integer CHECK (max_documents_mb IS NULL OR max_documents_mb > 0),
  ADD COLUMN monthly_usage_usd numeric(12, 2) CHECK (monthly_usage_usd IS NULL OR monthly_usage_usd > 0);

-- A plan's price and markup from when they hold: a month's bill reads those in force when the
-- month ended (or now, for the running month), so a closed month's bill never changes.
CREATE TABLE plan_prices (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  plan_id uuid NOT NULL REFERENCES plans (id) ON DELETE CASCADE,
  price_cents integer NOT NULL CHECK (price_cents BETWEEN 0 AND 100000000),
  usage_markup_percent integer NOT NULL CHECK (usage_markup_percent BETWEEN 0 AND 1000),
  starts_at timestamptz NOT NULL
);
CREATE INDEX plan_prices_plan_idx ON plan_prices (plan_id, starts_at DESC, id DESC);
INSERT INTO plan_prices (plan_id, price_cents, usage_markup_percent, starts_at)
SELECT id, price_cents, usage_markup_percent, created_at FROM plans;

-- The plan a business is on now (NULL for none: a business registered before plans had one and
-- whose agency had no active public plan). Only a BUSINESS has one; plans are never deleted.
ALTER TABLE organizations
  ADD COLUMN plan_id uuid REFERENCES plans (id) ON DELETE RESTRICT,
  ADD CONSTRAINT organizations_plan_only_business CHECK (plan_id IS NULL OR type = 'BUSINESS');
CREATE INDEX organizations_plan_id_idx ON organizations (plan_id) WHERE plan_id IS NOT NULL;

-- Every plan a business was put on and from when: the plan of a month is the last one that
-- started before the month ended. Written in the transaction that changes organizations.plan_id.
CREATE TABLE business_plan_periods (
  id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  plan_id uuid NOT NULL REFERENCES plans (id) ON DELETE RESTRICT,
  starts_at timestamptz NOT NULL
);
CREATE INDEX business_plan_periods_organization_idx ON business_plan_periods (organization_id, starts_at DESC, id DESC);

-- Businesses registered before plans: the agency's oldest active public plan, from their creation.
UPDATE organizations b SET plan_id = (
  SELECT p.id FROM plans p
  WHERE p.organization_id = b.parent_id AND p.is_active AND p.is_public
  ORDER BY p.created_at, p.id LIMIT 1)
WHERE b.type = 'BUSINESS';
INSERT INTO business_plan_periods (organization_id, plan_id, starts_at)
SELECT id, plan_id, created_at FROM organizations WHERE plan_id IS NOT NULL;

-- New end-user messages of an organization per UTC month, all its channels together: the exact
-- count behind a plan's maxEndUserMessagesPerMonth (one conditional upsert a message).
CREATE TABLE organization_monthly_messages (
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  month date NOT NULL,
  messages integer NOT NULL CHECK (messages >= 0),
  PRIMARY KEY (organization_id, month)
);

-- The reservation of a model call (migration 1100) now holds against the lower of the enforced
-- budget's limit and the monthly usage limit of the organization's plan; either alone enforces.
-- Concurrent reservations of one organization are serialized by the budget row's lock, or, with
-- a plan limit, by the organization row's (FOR NO KEY UPDATE: foreign-key checks pass).
CREATE OR REPLACE FUNCTION reserve_usage(p_id uuid, p_org uuid, p_amount numeric, p_from timestamptz, p_to timestamptz,
                                         p_now timestamptz, p_expires timestamptz,
                                         OUT reserved boolean, OUT enforced boolean, OUT spent_usd numeric, OUT limit_usd numeric)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  held numeric;
  budget_limit numeric;
  plan_limit numeric;
BEGIN
  SELECT monthly_limit_usd INTO budget_limit FROM usage_budgets WHERE organization_id = p_org AND enforce FOR UPDATE;
  SELECT p.monthly_usage_usd INTO plan_limit
    FROM organizations o JOIN plans p ON p.id = o.plan_id
    WHERE o.id = p_org AND p.monthly_usage_usd IS NOT NULL
    FOR NO KEY UPDATE OF o;
  IF budget_limit IS NULL AND plan_limit IS NULL THEN
    reserved := true;
    enforced := false;
    RETURN;
  END IF;
  enforced := true;
  limit_usd := least(budget_limit, plan_limit);
  SELECT coalesce(sum(cost_usd), 0) INTO spent_usd FROM usage_rollup_day
    WHERE organization_id = p_org AND day >= p_from AND day < p_to;
  SELECT coalesce(sum(amount_usd), 0) INTO held FROM usage_reservations
    WHERE organization_id = p_org AND expires_at > p_now;
  spent_usd := spent_usd + held;
  IF spent_usd >= limit_usd OR spent_usd + p_amount > limit_usd THEN
    reserved := false;
    RETURN;
  END IF;
  INSERT INTO usage_reservations (id, organization_id, amount_usd, created_at, expires_at)
    VALUES (p_id, p_org, p_amount, p_now, p_expires);
  reserved := true;
END
$$;
