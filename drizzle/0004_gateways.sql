CREATE TABLE "device_stats" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	"collected_at" timestamp with time zone NOT NULL,
	"upload" bigint NOT NULL,
	"download" bigint NOT NULL,
	"endpoint" text,
	"latest_handshake" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "gateways" (
	"id" serial PRIMARY KEY NOT NULL,
	"location_id" integer NOT NULL,
	"hostname" text NOT NULL,
	"name" text,
	"version" text,
	"connected" boolean DEFAULT false NOT NULL,
	"connected_at" timestamp with time zone,
	"disconnected_at" timestamp with time zone,
	"last_seen_at" timestamp with time zone,
	"process_id" text
);
--> statement-breakpoint
ALTER TABLE "device_stats" ADD CONSTRAINT "device_stats_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_stats" ADD CONSTRAINT "device_stats_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "gateways" ADD CONSTRAINT "gateways_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_stats_location_time_idx" ON "device_stats" USING btree ("location_id","collected_at");--> statement-breakpoint
CREATE INDEX "device_stats_device_time_idx" ON "device_stats" USING btree ("device_id","collected_at");--> statement-breakpoint
CREATE UNIQUE INDEX "gateways_location_host_idx" ON "gateways" USING btree ("location_id","hostname");