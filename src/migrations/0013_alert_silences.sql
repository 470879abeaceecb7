CREATE TABLE "alert_silences" (
	"owner" text NOT NULL,
	"id" text NOT NULL,
	"matchers" jsonb NOT NULL,
	"starts_at" timestamp with time zone NOT NULL,
	"ends_at" timestamp with time zone NOT NULL,
	"comment" text NOT NULL,
	"created_by" text NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_silences_owner_id_pk" PRIMARY KEY("owner","id")
);
--> statement-breakpoint
ALTER TABLE "alert_firings" ADD COLUMN "silenced_by" text;--> statement-breakpoint
CREATE INDEX "alert_silences_ends_idx" ON "alert_silences" USING btree ("owner","ends_at");