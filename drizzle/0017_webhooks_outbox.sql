CREATE TABLE "activity_log_streams" (
	"id" serial PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"stream_type" text NOT NULL,
	"url" text NOT NULL,
	"username" text,
	"password" text,
	"cert" text
);
--> statement-breakpoint
CREATE TABLE "outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"target_id" integer NOT NULL,
	"event" text NOT NULL,
	"payload" text NOT NULL,
	"delivery_id" uuid DEFAULT gen_random_uuid() NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"state" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"give_up_at" timestamp with time zone DEFAULT now() + interval '24 hours' NOT NULL,
	"claimed_until" timestamp with time zone,
	"claim_token" text,
	"last_attempt_at" timestamp with time zone,
	"last_status" integer,
	"last_error" text,
	"delivered_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "webhooks" (
	"id" serial PRIMARY KEY NOT NULL,
	"url" text NOT NULL,
	"description" text DEFAULT '' NOT NULL,
	"token" text NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"on_user_created" boolean DEFAULT false NOT NULL,
	"on_user_deleted" boolean DEFAULT false NOT NULL,
	"on_user_modified" boolean DEFAULT false NOT NULL,
	"on_hwkey_provision" boolean DEFAULT false NOT NULL
);
--> statement-breakpoint
CREATE INDEX "outbox_target_idx" ON "outbox" USING btree ("kind","target_id","id");--> statement-breakpoint
CREATE INDEX "outbox_pending_idx" ON "outbox" USING btree ("kind","target_id","id") WHERE state = 'pending';--> statement-breakpoint
CREATE INDEX "outbox_delivered_idx" ON "outbox" USING btree ("delivered_at");--> statement-breakpoint
-- Every activity-log entry is queued for every log stream by the statement that writes it, so
-- an entry and its deliveries commit (or roll back) together, whoever writes the log.
CREATE FUNCTION "outbox_from_activity_log"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO outbox (kind, target_id, event, payload)
  SELECT 'stream', s.id, n.event,
         json_build_object('id', n.id, 'timestamp', n.timestamp, 'user_id', n.user_id, 'username', n.username,
                           'location', n.location, 'ip', n.ip, 'event', n.event, 'module', n.module,
                           'device', n.device, 'description', n.description)::text
  FROM changed n CROSS JOIN activity_log_streams s
  ORDER BY n.id, s.id;
  RETURN NULL;
END $$;
--> statement-breakpoint
CREATE TRIGGER "outbox_activity_log_insert" AFTER INSERT ON "activity_log" REFERENCING NEW TABLE AS changed FOR EACH STATEMENT EXECUTE FUNCTION "outbox_from_activity_log"();
