-- Overview at scale: transfer kept in rollups maintained by the stats ingest (lib/stats/ingest.ts).
-- Per location and minute: the network and location series and totals.
CREATE TABLE "stats_minute" (
	"location_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"upload" bigint DEFAULT 0 NOT NULL,
	"download" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "stats_minute_pk" PRIMARY KEY("location_id","bucket")
) WITH (fillfactor = 70);
--> statement-breakpoint
-- Per device, location and hour: the per-device series of a location's users.
CREATE TABLE "stats_hour" (
	"location_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"device_id" integer NOT NULL,
	"upload" bigint DEFAULT 0 NOT NULL,
	"download" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "stats_hour_pk" PRIMARY KEY("location_id","bucket","device_id")
) WITH (fillfactor = 50);
--> statement-breakpoint
-- Samples written before this migration (ids below backfill_below) are folded into the rollups
-- by the stats-rollup-backfill job, newest first, a chunk at a time; NULL once done.
CREATE TABLE "stats_rollup_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"backfill_below" bigint
);
--> statement-breakpoint
INSERT INTO "stats_rollup_state" ("id", "backfill_below") SELECT 1, max("id") + 1 FROM "device_stats";
--> statement-breakpoint
-- When a device last sent a sample in a location: "active in the window" without reading samples.
ALTER TABLE "device_locations" ADD COLUMN "last_sample_at" timestamp with time zone;
--> statement-breakpoint
CREATE FUNCTION "stats_rollups_delete_for_location"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM stats_minute WHERE location_id = OLD.id;
  DELETE FROM stats_hour WHERE location_id = OLD.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "locations_delete_stats_rollups" AFTER DELETE ON "locations" FOR EACH ROW EXECUTE FUNCTION "stats_rollups_delete_for_location"();
