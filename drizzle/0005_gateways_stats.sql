ALTER TABLE "device_locations" ADD COLUMN "upload_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "device_locations" ADD COLUMN "download_total" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "device_locations" ADD COLUMN "last_handshake" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "device_locations" ADD COLUMN "last_endpoint" text;