CREATE TABLE "mobile_auth_keys" (
	"device_id" integer PRIMARY KEY NOT NULL,
	"pub_key" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "mobile_auth_keys" ADD CONSTRAINT "mobile_auth_keys_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;
