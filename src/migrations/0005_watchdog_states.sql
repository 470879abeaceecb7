CREATE TABLE "watchdog_states" (
	"name" text PRIMARY KEY NOT NULL,
	"enabled" boolean DEFAULT true NOT NULL,
	"since" timestamp with time zone NOT NULL,
	"updated_by" text,
	"generation" integer DEFAULT 0 NOT NULL,
	"rearm" jsonb NOT NULL,
	"checks" integer DEFAULT 0 NOT NULL,
	"events" integer DEFAULT 0 NOT NULL,
	"errors" integer DEFAULT 0 NOT NULL,
	"consecutive_failures" integer DEFAULT 0 NOT NULL,
	"last_check_at" timestamp with time zone,
	"last_check_ms" integer,
	"last_event_at" timestamp with time zone,
	"last_checked" integer DEFAULT 0 NOT NULL,
	"last_gaps" integer DEFAULT 0 NOT NULL,
	"last_error" text
);
