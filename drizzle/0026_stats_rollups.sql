-- Overview at scale: transfer kept in rollups (lib/stats/rollups.ts).
-- Per location and minute, kept by the stats ingest (lib/stats/ingest.ts): the network and
-- location series and totals.
CREATE TABLE "stats_minute" (
	"location_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"upload" bigint DEFAULT 0 NOT NULL,
	"download" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "stats_minute_pk" PRIMARY KEY("location_id","bucket")
) WITH (fillfactor = 70);
--> statement-breakpoint
-- Per device, location and hour: the per-device series of a location's users. Folded from the
-- samples by the stats-hour-rollup job (ids from stats_rollup_state.hour_from on are not yet in).
CREATE TABLE "stats_hour" (
	"location_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"device_id" integer NOT NULL,
	"upload" bigint DEFAULT 0 NOT NULL,
	"download" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "stats_hour_pk" PRIMARY KEY("location_id","bucket","device_id")
) WITH (fillfactor = 70);
--> statement-breakpoint
-- backfill_below: samples written before this migration (ids below it) are folded into both
-- rollups by the stats-rollup-backfill job, newest first; NULL once done. hour_from: samples
-- from this id on are not yet in stats_hour; pending_hi/pending_xmax: the next fold's end and
-- the transaction horizon it waits for (every writer of an id below pending_hi has finished).
CREATE TABLE "stats_rollup_state" (
	"id" integer PRIMARY KEY NOT NULL,
	"backfill_below" bigint,
	"hour_from" bigint NOT NULL,
	"pending_hi" bigint,
	"pending_xmax" bigint
);
--> statement-breakpoint
INSERT INTO "stats_rollup_state" ("id", "backfill_below", "hour_from") SELECT 1, max("id") + 1, coalesce(max("id") + 1, 1) FROM "device_stats";
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
