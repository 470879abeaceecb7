CREATE TABLE "alert_deliveries" (
	"id" text PRIMARY KEY NOT NULL,
	"firing_id" text NOT NULL,
	"owner" text NOT NULL,
	"alert_id" text NOT NULL,
	"method" text NOT NULL,
	"status" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"last_error" text,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"next_attempt_at" timestamp with time zone
);
--> statement-breakpoint
CREATE TABLE "alert_delivery_attempts" (
	"delivery_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"owner" text NOT NULL,
	"alert_id" text NOT NULL,
	"method" text NOT NULL,
	"status" text NOT NULL,
	"response_code" integer,
	"latency_ms" integer NOT NULL,
	"error" text,
	"attempted_at" timestamp with time zone NOT NULL,
	CONSTRAINT "alert_delivery_attempts_delivery_id_attempt_pk" PRIMARY KEY("delivery_id","attempt")
);
--> statement-breakpoint
CREATE TABLE "alert_firings" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"alert_id" text NOT NULL,
	"event_id" text NOT NULL,
	"status" text NOT NULL,
	"event" jsonb NOT NULL,
	"fired_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "alerts" (
	"owner" text NOT NULL,
	"id" text NOT NULL,
	"name" text NOT NULL,
	"description" text NOT NULL,
	"enabled" boolean NOT NULL,
	"trigger_type" text NOT NULL,
	"config" jsonb NOT NULL,
	"delivery_methods" jsonb NOT NULL,
	"cooldown_seconds" integer NOT NULL,
	"secrets" text,
	"secret_fields" jsonb NOT NULL,
	"armed" boolean DEFAULT true NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"updated_at" timestamp with time zone NOT NULL,
	"last_triggered" timestamp with time zone,
	"trigger_count" integer DEFAULT 0 NOT NULL,
	CONSTRAINT "alerts_owner_id_pk" PRIMARY KEY("owner","id")
);
--> statement-breakpoint
CREATE INDEX "alert_deliveries_alert_idx" ON "alert_deliveries" USING btree ("owner","alert_id","created_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alert_deliveries_status_idx" ON "alert_deliveries" USING btree ("status","next_attempt_at");--> statement-breakpoint
CREATE INDEX "alert_delivery_attempts_alert_idx" ON "alert_delivery_attempts" USING btree ("owner","alert_id","attempted_at" DESC NULLS LAST);--> statement-breakpoint
CREATE UNIQUE INDEX "alert_firings_once_idx" ON "alert_firings" USING btree ("owner","alert_id","event_id");--> statement-breakpoint
CREATE INDEX "alert_firings_alert_idx" ON "alert_firings" USING btree ("owner","alert_id","fired_at" DESC NULLS LAST);--> statement-breakpoint
CREATE INDEX "alerts_enabled_trigger_idx" ON "alerts" USING btree ("enabled","trigger_type");