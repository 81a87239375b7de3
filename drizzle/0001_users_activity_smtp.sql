CREATE TABLE "activity_log" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"timestamp" timestamp with time zone DEFAULT now() NOT NULL,
	"user_id" integer,
	"username" text NOT NULL,
	"location" text,
	"ip" text,
	"event" text NOT NULL,
	"module" text NOT NULL,
	"device" text,
	"description" text
);
--> statement-breakpoint
CREATE TABLE "password_reset_tokens" (
	"token_hash" text PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"used_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "smtp_server" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "smtp_port" integer;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "smtp_encryption" text DEFAULT 'starttls' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "smtp_user" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "smtp_password_enc" text;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "smtp_sender" text;--> statement-breakpoint
ALTER TABLE "activity_log" ADD CONSTRAINT "activity_log_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "password_reset_tokens" ADD CONSTRAINT "password_reset_tokens_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "activity_log_timestamp_idx" ON "activity_log" USING btree ("timestamp");--> statement-breakpoint
CREATE INDEX "activity_log_username_idx" ON "activity_log" USING btree ("username");--> statement-breakpoint
CREATE INDEX "activity_log_event_idx" ON "activity_log" USING btree ("event");