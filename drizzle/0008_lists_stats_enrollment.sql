CREATE TABLE "list_versions" (
	"name" text PRIMARY KEY NOT NULL,
	"version" integer DEFAULT 0 NOT NULL
);
--> statement-breakpoint
CREATE TABLE "enrollment_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"user_id" integer NOT NULL,
	"admin_id" integer,
	"device_id" integer,
	"email" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "device_stats" DROP CONSTRAINT IF EXISTS "device_stats_device_id_devices_id_fk";
--> statement-breakpoint
ALTER TABLE "device_stats" DROP CONSTRAINT IF EXISTS "device_stats_location_id_locations_id_fk";
--> statement-breakpoint
ALTER TABLE "devices" ALTER COLUMN "wireguard_pubkey" DROP NOT NULL;--> statement-breakpoint
ALTER TABLE "enrollment_tokens" ADD CONSTRAINT "enrollment_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollment_tokens" ADD CONSTRAINT "enrollment_tokens_admin_id_users_id_fk" FOREIGN KEY ("admin_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "enrollment_tokens" ADD CONSTRAINT "enrollment_tokens_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "enrollment_tokens_user_idx" ON "enrollment_tokens" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "enrollment_tokens_device_idx" ON "enrollment_tokens" USING btree ("device_id");--> statement-breakpoint
-- Hand-written below: storage, triggers (not modelled by drizzle-kit).
-- device_locations is rewritten by every stats batch: room on each page keeps those updates HOT.
ALTER TABLE "device_locations" SET (fillfactor = 80);
--> statement-breakpoint
-- device_stats has no foreign keys (ingest rate); its rows leave with their device or location.
CREATE FUNCTION "device_stats_delete_for_device"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM device_stats WHERE device_id = OLD.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE FUNCTION "device_stats_delete_for_location"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM device_stats WHERE location_id = OLD.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "devices_delete_stats" AFTER DELETE ON "devices" FOR EACH ROW EXECUTE FUNCTION "device_stats_delete_for_device"();
--> statement-breakpoint
CREATE TRIGGER "locations_delete_stats" AFTER DELETE ON "locations" FOR EACH ROW EXECUTE FUNCTION "device_stats_delete_for_location"();
--> statement-breakpoint
-- The users list version: bumped once per statement touching users, groups or memberships.
INSERT INTO "list_versions" ("name", "version") VALUES ('users', 0);
--> statement-breakpoint
CREATE FUNCTION "bump_list_version"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE list_versions SET version = version + 1 WHERE name = TG_ARGV[0];
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "users_list_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "users" FOR EACH STATEMENT EXECUTE FUNCTION "bump_list_version"('users');
--> statement-breakpoint
CREATE TRIGGER "groups_list_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "groups" FOR EACH STATEMENT EXECUTE FUNCTION "bump_list_version"('users');
--> statement-breakpoint
CREATE TRIGGER "group_users_list_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "group_users" FOR EACH STATEMENT EXECUTE FUNCTION "bump_list_version"('users');
