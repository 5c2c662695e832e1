-- Reservations of an enforced budget (docs/analytics.md, "Budgets that hold under concurrency"):
-- before a model call is sent, its worst-case cost is reserved against the month's spend; after
-- it, the reservation is settled to the actual cost, and it goes when the call's usage row is
-- written (in the same statement). A reservation whose writer died runs out at `expires_at`.

CREATE TABLE usage_reservations (
  id uuid PRIMARY KEY,
  organization_id uuid NOT NULL REFERENCES organizations (id) ON DELETE CASCADE,
  amount_usd numeric NOT NULL CHECK (amount_usd >= 0),
  created_at timestamptz NOT NULL,
  expires_at timestamptz NOT NULL
);
CREATE INDEX usage_reservations_organization_idx ON usage_reservations (organization_id, expires_at) INCLUDE (amount_usd);

-- Reserves `p_amount` USD for organization `p_org` when its budget is enforced and the month's
-- spend `[p_from, p_to)` plus its live reservations plus `p_amount` stays within the limit (and
-- the spend plus the reservations is below it). One call is one round trip and atomic across
-- every process: the budget row is locked first, and each statement after the lock reads a new
-- snapshot (READ COMMITTED), so it sees every reservation and usage row committed by whoever held
-- the lock before. A usage row and the deletion of its reservation commit in one statement, so a
-- reader sees either the reservation or the spend, never both or neither.
-- `reserved`: true when the amount is reserved or no enforced budget exists (`enforced` false).
CREATE FUNCTION reserve_usage(p_id uuid, p_org uuid, p_amount numeric, p_from timestamptz, p_to timestamptz,
                              p_now timestamptz, p_expires timestamptz,
                              OUT reserved boolean, OUT enforced boolean, OUT spent_usd numeric, OUT limit_usd numeric)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
  held numeric;
BEGIN
  SELECT monthly_limit_usd INTO limit_usd FROM usage_budgets WHERE organization_id = p_org AND enforce FOR UPDATE;
  IF NOT FOUND THEN
    reserved := true;
    enforced := false;
    RETURN;
  END IF;
  enforced := true;
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
