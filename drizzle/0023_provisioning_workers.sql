CREATE TABLE "yubikeys" (
	"id" serial PRIMARY KEY NOT NULL,
	"user_id" integer NOT NULL,
	"name" text NOT NULL,
	"serial" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "yubikeys" ADD CONSTRAINT "yubikeys_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "yubikeys_user_idx" ON "yubikeys" USING btree ("user_id");--> statement-breakpoint
ALTER TABLE "authentication_keys" ADD COLUMN "yubikey_id" integer;--> statement-breakpoint
ALTER TABLE "authentication_keys" ADD CONSTRAINT "authentication_keys_yubikey_id_yubikeys_id_fk" FOREIGN KEY ("yubikey_id") REFERENCES "public"."yubikeys"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE TABLE "provisioning_workers" (
	"id" text PRIMARY KEY NOT NULL,
	"ip" text,
	"last_seen" timestamp with time zone,
	"registered_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "provisioning_jobs" (
	"id" serial PRIMARY KEY NOT NULL,
	"worker_id" text NOT NULL,
	"user_id" integer NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"yubikey_serial" text,
	"error" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "provisioning_jobs_state_check" CHECK ("state" IN ('pending', 'done', 'failed'))
);
--> statement-breakpoint
ALTER TABLE "provisioning_jobs" ADD CONSTRAINT "provisioning_jobs_worker_id_fk" FOREIGN KEY ("worker_id") REFERENCES "public"."provisioning_workers"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "provisioning_jobs" ADD CONSTRAINT "provisioning_jobs_user_id_users_id_fk" FOREIGN KEY ("user_id") REFERENCES "public"."users"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "provisioning_jobs_worker_idx" ON "provisioning_jobs" USING btree ("worker_id","state","id");
