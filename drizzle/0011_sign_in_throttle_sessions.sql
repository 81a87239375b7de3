CREATE TABLE "sign_in_blocks" (
	"ip" text NOT NULL,
	"login" text DEFAULT '' NOT NULL,
	"blocked_until" timestamp with time zone NOT NULL,
	CONSTRAINT "sign_in_blocks_ip_login_pk" PRIMARY KEY("ip","login")
);
--> statement-breakpoint
ALTER TABLE "login_failures" ADD COLUMN "ip" text DEFAULT '' NOT NULL;--> statement-breakpoint
ALTER TABLE "sessions" ADD COLUMN "reauth_at" timestamp with time zone;--> statement-breakpoint
CREATE INDEX "login_failures_ip_at_idx" ON "login_failures" USING btree ("ip","at");--> statement-breakpoint
-- custom SQL (keep when regenerating)
-- Locks of the old per-login rule would now read as account-wide locks: drop them.
DELETE FROM "login_lockouts";
--> statement-breakpoint
-- Sessions waiting for a second factor live at most 10 minutes from now on.
UPDATE "sessions" SET "expires_at" = least("expires_at", now() + interval '10 minutes') WHERE "state" = 'password_verified';
