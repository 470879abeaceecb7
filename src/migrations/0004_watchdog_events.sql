CREATE TABLE "watchdog_events" (
	"id" text PRIMARY KEY NOT NULL,
	"watchdog" text NOT NULL,
	"event_type" text NOT NULL,
	"severity" text NOT NULL,
	"symbol" text,
	"asset" jsonb,
	"description" text NOT NULL,
	"data" jsonb NOT NULL,
	"occurred_at" timestamp with time zone NOT NULL,
	"created_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "watchdog_events_occurred_idx" ON "watchdog_events" USING btree ("occurred_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "watchdog_events_severity_idx" ON "watchdog_events" USING btree ("severity","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "watchdog_events_type_idx" ON "watchdog_events" USING btree ("event_type","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "watchdog_events_symbol_idx" ON "watchdog_events" USING btree ("symbol","id" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "watchdog_events_watchdog_idx" ON "watchdog_events" USING btree ("watchdog","id" DESC NULLS LAST);