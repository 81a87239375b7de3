CREATE TABLE "branding_logos" (
	"kind" text PRIMARY KEY NOT NULL,
	"content_type" text NOT NULL,
	"data" "bytea" NOT NULL,
	"etag" text NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "branding_logos_kind_check" CHECK ("branding_logos"."kind" in ('main', 'nav'))
);
--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "default_overview_view" text DEFAULT 'grid' NOT NULL;--> statement-breakpoint
ALTER TABLE "settings" ADD COLUMN "support_email" text;
