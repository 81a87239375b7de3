ALTER TABLE "settings" ADD COLUMN "gateway_disconnect_notifications" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "gateway_inactivity_threshold" integer DEFAULT 5 NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "gateway_reconnect_notifications" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "gateways" ADD COLUMN "disconnect_notified_at" timestamp with time zone;