CREATE TABLE "acl_aliases" (
	"id" serial PRIMARY KEY NOT NULL,
	"parent_id" integer,
	"state" text DEFAULT 'applied' NOT NULL,
	"name" text NOT NULL,
	"kind" text DEFAULT 'destination' NOT NULL,
	"destination" text[] DEFAULT '{}' NOT NULL,
	"ports" text[] DEFAULT '{}' NOT NULL,
	"protocols" integer[] DEFAULT '{}' NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "acl_rule_aliases" (
	"rule_id" integer NOT NULL,
	"alias_id" integer NOT NULL,
	CONSTRAINT "acl_rule_aliases_rule_id_alias_id_pk" PRIMARY KEY("rule_id","alias_id")
);
--> statement-breakpoint
CREATE TABLE "acl_rule_devices" (
	"rule_id" integer NOT NULL,
	"device_id" integer NOT NULL,
	"allow" boolean NOT NULL,
	CONSTRAINT "acl_rule_devices_rule_id_device_id_allow_pk" PRIMARY KEY("rule_id","device_id","allow")
);
--> statement-breakpoint
CREATE TABLE "acl_rule_groups" (
	"rule_id" integer NOT NULL,
	"group_id" integer NOT NULL,
	"allow" boolean NOT NULL,
	CONSTRAINT "acl_rule_groups_rule_id_group_id_allow_pk" PRIMARY KEY("rule_id","group_id","allow")
);
--> statement-breakpoint
CREATE TABLE "acl_rule_locations" (
	"rule_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	CONSTRAINT "acl_rule_locations_rule_id_location_id_pk" PRIMARY KEY("rule_id","location_id")
);
--> statement-breakpoint
CREATE TABLE "acl_rule_users" (
	"rule_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"allow" boolean NOT NULL,
	CONSTRAINT "acl_rule_users_rule_id_user_id_allow_pk" PRIMARY KEY("rule_id","user_id","allow")
);
--> statement-breakpoint
CREATE TABLE "acl_rules" (
	"id" serial PRIMARY KEY NOT NULL,
	"parent_id" integer,
	"state" text DEFAULT 'new' NOT NULL,
	"name" text NOT NULL,
	"all_networks" boolean DEFAULT false NOT NULL,
	"allow_all_users" boolean DEFAULT false NOT NULL,
	"deny_all_users" boolean DEFAULT false NOT NULL,
	"allow_all_network_devices" boolean DEFAULT false NOT NULL,
	"deny_all_network_devices" boolean DEFAULT false NOT NULL,
	"destination" text[] DEFAULT '{}' NOT NULL,
	"ports" text[] DEFAULT '{}' NOT NULL,
	"protocols" integer[] DEFAULT '{}' NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"expires" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "acl_aliases" ADD CONSTRAINT "acl_aliases_parent_id_acl_aliases_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."acl_aliases"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_aliases" ADD CONSTRAINT "acl_rule_aliases_rule_id_acl_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."acl_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_aliases" ADD CONSTRAINT "acl_rule_aliases_alias_id_acl_aliases_id_fk" FOREIGN KEY ("alias_id") REFERENCES "public"."acl_aliases"("id") ON DELETE restrict ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_devices" ADD CONSTRAINT "acl_rule_devices_rule_id_acl_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."acl_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_devices" ADD CONSTRAINT "acl_rule_devices_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_groups" ADD CONSTRAINT "acl_rule_groups_rule_id_acl_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."acl_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_groups" ADD CONSTRAINT "acl_rule_groups_group_id_groups_id_fk" FOREIGN KEY ("group_id") REFERENCES "public"."groups"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_locations" ADD CONSTRAINT "acl_rule_locations_rule_id_acl_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."acl_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_locations" ADD CONSTRAINT "acl_rule_locations_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_users" ADD CONSTRAINT "acl_rule_users_rule_id_acl_rules_id_fk" FOREIGN KEY ("rule_id") REFERENCES "public"."acl_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rule_users" ADD CONSTRAINT "acl_rule_users_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "acl_rules" ADD CONSTRAINT "acl_rules_parent_id_acl_rules_id_fk" FOREIGN KEY ("parent_id") REFERENCES "public"."acl_rules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "acl_aliases_parent_idx" ON "acl_aliases" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "acl_rule_aliases_alias_idx" ON "acl_rule_aliases" USING btree ("alias_id");--> statement-breakpoint
CREATE INDEX "acl_rule_devices_device_idx" ON "acl_rule_devices" USING btree ("device_id");--> statement-breakpoint
CREATE INDEX "acl_rule_groups_group_idx" ON "acl_rule_groups" USING btree ("group_id");--> statement-breakpoint
CREATE INDEX "acl_rule_locations_location_idx" ON "acl_rule_locations" USING btree ("location_id");--> statement-breakpoint
CREATE INDEX "acl_rule_users_user_idx" ON "acl_rule_users" USING btree ("user_id");--> statement-breakpoint
CREATE INDEX "acl_rules_parent_idx" ON "acl_rules" USING btree ("parent_id");--> statement-breakpoint
CREATE INDEX "acl_rules_state_idx" ON "acl_rules" USING btree ("state");