-- The roles of an agency and of the businesses it serves (docs/identity.md, "Roles and grants").
-- `business-owner` is what `register/business` gives the owner it creates; members of an agency or
-- a business read agents and answer approvals. `agency-owner` also answers approvals and manages members.
INSERT INTO roles (id, name, description) VALUES
  ('01900000-0000-7000-8000-000000000103', 'business-owner', 'Runs a business workspace: its agents, approvals, members and settings'),
  ('01900000-0000-7000-8000-000000000104', 'business-member', 'Works in a business workspace: reads its agents and answers approvals'),
  ('01900000-0000-7000-8000-000000000105', 'agency-member', 'Works in an agency: reads its agents and answers approvals')
ON CONFLICT DO NOTHING;

INSERT INTO role_permissions (role_id, subject, action)
SELECT r.id, p.subject, p.action
FROM roles r
JOIN (VALUES
  ('business-owner', 'ai.agent', 'read'), ('business-owner', 'ai.agent', 'create'), ('business-owner', 'ai.agent', 'update'),
  ('business-owner', 'ai.approval', 'update'),
  ('business-owner', 'organization', 'read'), ('business-owner', 'organization', 'update'),
  ('business-owner', 'organization.member', 'read'), ('business-owner', 'organization.member', 'create'),
  ('business-owner', 'organization.member', 'delete'),
  ('business-member', 'ai.agent', 'read'), ('business-member', 'ai.approval', 'update'),
  ('agency-member', 'ai.agent', 'read'), ('agency-member', 'ai.approval', 'update'),
  ('agency-owner', 'ai.approval', 'update'),
  ('agency-owner', 'organization.member', 'read'), ('agency-owner', 'organization.member', 'create'),
  ('agency-owner', 'organization.member', 'delete')
) AS p (role, subject, action) ON p.role = r.name
ON CONFLICT DO NOTHING;
