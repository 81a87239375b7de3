CREATE TABLE "device_locations" (
	"device_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	"ips" text[] NOT NULL,
	"preshared_key" text,
	"is_authorized" boolean DEFAULT false NOT NULL,
	"authorized_at" timestamp with time zone,
	CONSTRAINT "device_locations_device_id_location_id_pk" PRIMARY KEY("device_id","location_id")
);
--> statement-breakpoint
CREATE TABLE "devices" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"wireguard_pubkey" text NOT NULL,
	"user_id" integer NOT NULL,
	"description" text,
	"device_type" text DEFAULT 'user' NOT NULL,
	"configured" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "location_allowed_groups" (
	"location_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	CONSTRAINT "location_allowed_groups_location_id_group_id_pk" PRIMARY KEY("location_id","group_id")
);
--> statement-breakpoint
CREATE TABLE "locations" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"address" text[] NOT NULL,
	"port" integer NOT NULL,
	"endpoint" text NOT NULL,
	"allowed_ips" text[] DEFAULT '{}' NOT NULL,
	"dns" text,
	"pubkey" text NOT NULL,
	"prvkey_enc" text NOT NULL,
	"keepalive_interval" integer DEFAULT 25 NOT NULL,
	"peer_disconnect_threshold" integer DEFAULT 300 NOT NULL,
	"acl_enabled" boolean DEFAULT false NOT NULL,
	"acl_default_allow" boolean DEFAULT false NOT NULL,
	"location_mfa_mode" text DEFAULT 'disabled' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "device_locations" ADD CONSTRAINT "device_locations_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "device_locations" ADD CONSTRAINT "device_locations_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "devices" ADD CONSTRAINT "devices_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "location_allowed_groups" ADD CONSTRAINT "location_allowed_groups_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "location_allowed_groups" ADD CONSTRAINT "location_allowed_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "device_locations_location_idx" ON "device_locations" USING btree ("location_id");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_pubkey_idx" ON "devices" USING btree ("wireguard_pubkey");--> statement-breakpoint
CREATE UNIQUE INDEX "devices_user_name_idx" ON "devices" USING btree ("user_id","device_type","name");--> statement-breakpoint
CREATE INDEX "devices_type_idx" ON "devices" USING btree ("device_type");--> statement-breakpoint
CREATE INDEX "location_groups_group_idx" ON "location_allowed_groups" USING btree ("group_id");--> statement-breakpoint
CREATE UNIQUE INDEX "locations_name_idx" ON "locations" USING btree ("name");