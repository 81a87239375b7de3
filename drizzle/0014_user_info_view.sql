-- custom SQL (keep when regenerating)
-- UserInfo (docs/api.md) in one place: the single read, the paged and searched lists and the
-- per-user JSON cache of the full list (users_list_json) all select from this view, so their
-- fields and order cannot drift apart (lib/users/shape.test.ts compares them).
CREATE VIEW "user_info" AS
  SELECT u.id, u.username, u.first_name, u.last_name, u.email, u.phone, u.is_active, u.enrolled,
         coalesce(g.is_admin, false) is_admin, u.mfa_enabled, u.totp_enabled, u.email_mfa_enabled, u.mfa_method,
         coalesce(g.names, '{}') "groups", '[]'::json authorized_apps, u.ldap_pass_requires_change
  FROM users u
  LEFT JOIN LATERAL (
    SELECT array_agg(gr.name ORDER BY gr.name) names, bool_or(gr.is_admin) is_admin
    FROM group_users gu JOIN groups gr ON gr.id = gu.group_id WHERE gu.user_id = u.id
  ) g ON true;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "refresh_users_list_json"(ids integer[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO users_list_json (user_id, body)
  SELECT v.id, row_to_json(v)::text FROM user_info v WHERE v.id = ANY(ids)
  ON CONFLICT (user_id) DO UPDATE SET body = excluded.body;
$$;
--> statement-breakpoint
SELECT refresh_users_list_json(array(SELECT id FROM users));
