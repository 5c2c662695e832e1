-- A reservation (migration 1220) reads the month's spend and the live reservations in ONE
-- statement, so in one snapshot. Read in two, a call's usage row could commit between them,
-- together with the release of its reservation: the first read missed the row and the second
-- missed the reservation, and a second call was let through a limit the first had filled.
CREATE OR REPLACE FUNCTION reserve_usage(p_id uuid, p_org uuid, p_amount numeric, p_from timestamptz, p_to timestamptz,
                                         p_now timestamptz, p_expires timestamptz,
                                         OUT reserved boolean, OUT enforced boolean, OUT spent_usd numeric, OUT limit_usd numeric)
LANGUAGE plpgsql VOLATILE AS $$
DECLARE
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
  SELECT (SELECT coalesce(sum(cost_usd), 0) FROM usage_rollup_day
            WHERE organization_id = p_org AND day >= p_from AND day < p_to)
       + (SELECT coalesce(sum(amount_usd), 0) FROM usage_reservations
            WHERE organization_id = p_org AND expires_at > p_now)
    INTO spent_usd;
  IF spent_usd >= limit_usd OR spent_usd + p_amount > limit_usd THEN
    reserved := false;
    RETURN;
  END IF;
  INSERT INTO usage_reservations (id, organization_id, amount_usd, created_at, expires_at)
    VALUES (p_id, p_org, p_amount, p_now, p_expires);
  reserved := true;
END
$$;
