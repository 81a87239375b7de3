CREATE TABLE "users_list_json" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"body" text NOT NULL
);
--> statement-breakpoint
ALTER TABLE "users_list_json" ADD CONSTRAINT "users_list_json_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
-- Hand-written below. One user's UserInfo (docs/api.md) as JSON: same fields and order as
-- lib/users/service.ts toUserInfo (tests/users.test.ts compares both forms of GET /user).
CREATE FUNCTION "refresh_users_list_json"(ids integer[]) RETURNS void LANGUAGE sql AS $$
  INSERT INTO users_list_json (user_id, body)
  SELECT t.id, row_to_json(t)::text FROM (
    SELECT u.id, u.username, u.first_name, u.last_name, u.email, u.phone, u.is_active, u.enrolled,
           coalesce(g.is_admin, false) is_admin, u.mfa_enabled, u.totp_enabled, u.email_mfa_enabled, u.mfa_method,
           coalesce(g.names, '{}') "groups", '[]'::json authorized_apps, u.ldap_pass_requires_change
    FROM users u
    LEFT JOIN LATERAL (
      SELECT array_agg(gr.name ORDER BY gr.name) names, bool_or(gr.is_admin) is_admin
      FROM group_users gu JOIN groups gr ON gr.id = gu.group_id WHERE gu.user_id = u.id
    ) g ON true
    WHERE u.id = ANY(ids)
  ) t
  ON CONFLICT (user_id) DO UPDATE SET body = excluded.body;
$$;
--> statement-breakpoint
CREATE FUNCTION "users_list_json_from_users"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_users_list_json(array(SELECT id FROM changed));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "users_list_json_from_members"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_users_list_json(array(SELECT DISTINCT user_id FROM changed));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "users_list_json_from_groups"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  PERFORM refresh_users_list_json(array(SELECT DISTINCT gu.user_id FROM group_users gu JOIN changed c ON c.id = gu.group_id));
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_list_json_insert" AFTER INSERT ON "users" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "users_list_json_from_users"();
--> statement-breakpoint
CREATE TRIGGER "users_list_json_update" AFTER UPDATE ON "users" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "users_list_json_from_users"();
--> statement-breakpoint
CREATE TRIGGER "users_list_json_member_added" AFTER INSERT ON "group_users" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "users_list_json_from_members"();
--> statement-breakpoint
CREATE TRIGGER "users_list_json_member_changed" AFTER UPDATE ON "group_users" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "users_list_json_from_members"();
--> statement-breakpoint
CREATE TRIGGER "users_list_json_member_removed" AFTER DELETE ON "group_users" REFERENCING OLD TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "users_list_json_from_members"();
--> statement-breakpoint
-- A renamed group or a changed admin flag: its members' entries (a deleted group's memberships
-- go by cascade and fire the membership trigger).
CREATE TRIGGER "users_list_json_group_changed" AFTER UPDATE ON "groups" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "users_list_json_from_groups"();
--> statement-breakpoint
SELECT refresh_users_list_json(array(SELECT id FROM users));
