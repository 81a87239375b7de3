-- Applied-revision acknowledgement, drift and propagation (docs/gateway-protocol.md, "Revisions").
-- Per location: the revision of the state its gateways must enforce, bumped in the transaction of
-- every change that produces a gateway update (lib/events/revisions.ts), and the location's sync
-- settings.
CREATE TABLE "location_sync" (
	"location_id" integer PRIMARY KEY NOT NULL REFERENCES "locations"("id") ON DELETE CASCADE,
	"revision" bigint DEFAULT 0 NOT NULL,
	"auto_repair" boolean DEFAULT true NOT NULL,
	"propagation_alert_ms" integer DEFAULT 1000 NOT NULL
);--> statement-breakpoint
-- When each revision was committed (for commit-to-acknowledgement times); pruned after a day.
CREATE TABLE "location_revision_log" (
	"location_id" integer NOT NULL REFERENCES "locations"("id") ON DELETE CASCADE,
	"revision" bigint NOT NULL,
	"committed_at" timestamp with time zone NOT NULL,
	PRIMARY KEY ("location_id", "revision")
);--> statement-breakpoint
-- Per gateway: the last revision it confirmed, and what its last state report showed.
CREATE TABLE "gateway_sync" (
	"gateway_id" integer PRIMARY KEY NOT NULL REFERENCES "gateways"("id") ON DELETE CASCADE,
	"applied_revision" bigint,
	"applied_at" timestamp with time zone,
	"reported_at" timestamp with time zone,
	"drift_since" timestamp with time zone,
	"drift" jsonb,
	"repair_requested_at" timestamp with time zone
);--> statement-breakpoint
-- Commit-to-acknowledgement time of each change per gateway (the overview's p50/p95 of the last hour).
CREATE TABLE "gateway_propagation" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL REFERENCES "locations"("id") ON DELETE CASCADE,
	"hostname" text NOT NULL,
	"revision" bigint NOT NULL,
	"seconds" double precision NOT NULL,
	"at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE INDEX "gateway_propagation_location_at_idx" ON "gateway_propagation" ("location_id", "at");
