-- LDAP / Active Directory two-way sync (docs/ldap.md).
-- ldap_users: one row per directory entry linked to a console user, with the values both sides
-- agreed on at the end of the last sync (the merge base). user_id becomes null when the console
-- user is deleted, so the next sync knows the deletion happened here.
CREATE TABLE "ldap_users" (
	"dn_key" text PRIMARY KEY NOT NULL,
	"dn" text NOT NULL,
	"user_id" integer REFERENCES "users"("id") ON DELETE SET NULL,
	"base" jsonb NOT NULL
);--> statement-breakpoint
CREATE UNIQUE INDEX "ldap_users_user_idx" ON "ldap_users" ("user_id");--> statement-breakpoint
-- ldap_groups: per group name, the member entries (dn_key) both sides agreed on at the last sync.
CREATE TABLE "ldap_groups" (
	"name" text PRIMARY KEY NOT NULL,
	"members" text[] DEFAULT '{}'::text[] NOT NULL
);--> statement-breakpoint
-- ldap_sync_state: one row, what the LDAP screen shows about the last sync.
CREATE TABLE "ldap_sync_state" (
	"id" integer PRIMARY KEY DEFAULT 1 NOT NULL,
	"last_run_at" timestamp with time zone,
	"last_success_at" timestamp with time zone,
	"last_ok" boolean,
	"last_error_kind" text,
	"last_error" text,
	"last_summary" jsonb,
	CONSTRAINT "ldap_sync_state_one_row" CHECK ("id" = 1)
);
