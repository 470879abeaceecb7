CREATE TABLE "alert_episodes" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"alert_id" text NOT NULL,
	"incident_key" text NOT NULL,
	"started_at" timestamp with time zone NOT NULL,
	"last_event_at" timestamp with time zone NOT NULL,
	"last_event" jsonb NOT NULL,
	"firings" integer DEFAULT 1 NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"acknowledged_by" text,
	"acknowledgement_note" text,
	"resolved_at" timestamp with time zone,
	"resolved_reason" text,
	"resolved_by" text,
	"resolution_note" text
);
--> statement-breakpoint
CREATE TABLE "alert_groups" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"alert_id" text NOT NULL,
	"group_key" text NOT NULL,
	"labels" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_event_at" timestamp with time zone NOT NULL,
	"flush_at" timestamp with time zone,
	"last_sent_at" timestamp with time zone,
	"notices" integer DEFAULT 0 NOT NULL,
	"acknowledged_at" timestamp with time zone,
	"acknowledged_by" text,
	"acknowledgement_note" text,
	"resolved_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "alert_firings" ADD COLUMN "kind" text DEFAULT 'event' NOT NULL;--> statement-breakpoint
ALTER TABLE "alert_firings" ADD COLUMN "episode_id" text;--> statement-breakpoint
ALTER TABLE "alert_firings" ADD COLUMN "group_id" text;--> statement-breakpoint
ALTER TABLE "alert_firings" ADD COLUMN "notice" jsonb;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_episodes_open_idx" ON "alert_episodes" USING btree ("owner","alert_id","incident_key") WHERE "alert_episodes"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "alert_episodes_alert_idx" ON "alert_episodes" USING btree ("owner","alert_id","started_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alert_episodes_open_age_idx" ON "alert_episodes" USING btree ("last_event_at") WHERE "alert_episodes"."resolved_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "alert_groups_open_idx" ON "alert_groups" USING btree ("owner","alert_id","group_key") WHERE "alert_groups"."resolved_at" is null;--> statement-breakpoint
CREATE INDEX "alert_groups_flush_idx" ON "alert_groups" USING btree ("flush_at") WHERE "alert_groups"."flush_at" is not null;--> statement-breakpoint
CREATE INDEX "alert_firings_group_idx" ON "alert_firings" USING btree ("group_id","fired_at") WHERE "alert_firings"."group_id" is not null;