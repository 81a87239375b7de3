CREATE TABLE "openid_provider" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"base_url" text NOT NULL,
	"client_id" text NOT NULL,
	"client_secret_enc" text,
	"display_name" text,
	"scopes" text[] DEFAULT '{openid,email,profile}' NOT NULL,
	"google_service_account_key_enc" text,
	"google_service_account_email" text,
	"admin_email" text,
	"directory_sync_enabled" boolean DEFAULT false NOT NULL,
	"directory_sync_interval" integer DEFAULT 600 NOT NULL,
	"directory_sync_user_behavior" text DEFAULT 'keep' NOT NULL,
	"directory_sync_admin_behavior" text DEFAULT 'keep' NOT NULL,
	"directory_sync_target" text DEFAULT 'all' NOT NULL,
	"okta_private_jwk_enc" text,
	"okta_dirsync_client_id" text,
	"directory_sync_group_match" text[] DEFAULT '{}' NOT NULL,
	"jumpcloud_api_key_enc" text,
	"prefetch_users" boolean DEFAULT false NOT NULL,
	"use_openid_for_client_mfa" boolean DEFAULT false NOT NULL,
	"last_sync_at" timestamp with time zone,
	"last_sync_ok" boolean,
	"last_sync_result" text,
	"last_sync_error" text,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE UNIQUE INDEX "openid_provider_name_idx" ON "openid_provider" USING btree ("name");--> statement-breakpoint
CREATE TABLE "user_openid_identities" (
	"user_id" integer PRIMARY KEY NOT NULL,
	"sub" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "user_openid_identities" ADD CONSTRAINT "user_openid_identities_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "user_openid_identities_sub_idx" ON "user_openid_identities" USING btree ("sub");
