-- Per device, location and 5 minutes, for the last STATS_FIVE_HOURS (25) hours: the per-device
-- series of windows up to a day (the overview's default hour among them) without reading the
-- samples. Folded with stats_hour by the stats-hour-rollup job (lib/stats/rollups.ts).
CREATE TABLE "stats_5min" (
	"location_id" integer NOT NULL,
	"bucket" timestamp with time zone NOT NULL,
	"device_id" integer NOT NULL,
	"upload" bigint DEFAULT 0 NOT NULL,
	"download" bigint DEFAULT 0 NOT NULL,
	CONSTRAINT "stats_5min_pk" PRIMARY KEY("location_id","bucket","device_id")
) WITH (fillfactor = 70);
--> statement-breakpoint
-- five_from: stats_5min holds every sample collected from then on, except the ids from five_hi
-- on, not folded yet (queries add those). Samples already folded into stats_hour when this
-- migration runs are not added to it: queries read stats_5min only for windows starting at or
-- after five_from, so upgraded installations use it from the next 5-minute bucket on (a new one
-- at once). five_hi stays at hour_from, except behind it while a console of an older version
-- (a rolling upgrade) folds hours alone; the job then catches up.
ALTER TABLE "stats_rollup_state" ADD COLUMN "five_from" timestamp with time zone DEFAULT '-infinity' NOT NULL;
--> statement-breakpoint
ALTER TABLE "stats_rollup_state" ADD COLUMN "five_hi" bigint DEFAULT 1 NOT NULL;
--> statement-breakpoint
UPDATE "stats_rollup_state" SET "five_hi" = "hour_from",
       "five_from" = CASE WHEN EXISTS (SELECT 1 FROM "device_stats" WHERE "device_stats"."id" < "stats_rollup_state"."hour_from")
                          THEN date_bin('5 minutes', now(), timestamptz '1970-01-01 00:00:00+00') + interval '5 minutes'
                          ELSE '-infinity' END
 WHERE id = 1;
--> statement-breakpoint
CREATE OR REPLACE FUNCTION "stats_rollups_delete_for_location"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  DELETE FROM stats_minute WHERE location_id = OLD.id;
  DELETE FROM stats_hour WHERE location_id = OLD.id;
  DELETE FROM stats_5min WHERE location_id = OLD.id;
  RETURN NULL;
END $$;
