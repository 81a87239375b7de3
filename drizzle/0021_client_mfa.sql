CREATE TABLE "client_mfa_sessions" (
	"pubkey" text PRIMARY KEY NOT NULL,
	"token_hash" text NOT NULL,
	"device_id" integer NOT NULL,
	"location_id" integer NOT NULL,
	"user_id" integer NOT NULL,
	"method" integer NOT NULL,
	"openid_auth_completed" boolean DEFAULT false NOT NULL,
	"failed_attempts" integer DEFAULT 0 NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "client_mfa_sessions" ADD CONSTRAINT "client_mfa_sessions_device_id_devices_id_fk" FOREIGN KEY ("device_id") REFERENCES "public"."devices"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_mfa_sessions" ADD CONSTRAINT "client_mfa_sessions_location_id_locations_id_fk" FOREIGN KEY ("location_id") REFERENCES "public"."locations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "client_mfa_sessions" ADD CONSTRAINT "client_mfa_sessions_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "client_mfa_sessions_token_idx" ON "client_mfa_sessions" USING btree ("token_hash");--> statement-breakpoint
CREATE INDEX "client_mfa_sessions_expires_idx" ON "client_mfa_sessions" USING btree ("expires_at");
