ALTER TABLE "device_locations" ADD COLUMN "connected" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "device_locations" ADD COLUMN "connected_at" timestamp with time zone;