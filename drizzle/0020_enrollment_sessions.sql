CREATE TABLE "polling_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"device_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "enrollment_tokens" ADD COLUMN "session_ends_at" timestamp with time zone;--> statement-breakpoint
ALTER TABLE "polling_tokens" ADD CONSTRAINT "polling_tokens_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "polling_tokens_device_idx" ON "polling_tokens" USING btree ("device_id");