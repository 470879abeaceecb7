CREATE TABLE "analysis_session_daily_metrics" (
	"day" date PRIMARY KEY NOT NULL,
	"sessions_created" integer NOT NULL,
	"queries" integer NOT NULL,
	"session_types" jsonb NOT NULL,
	"query_types" jsonb NOT NULL,
	"computed_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analysis_session_queries" (
	"session_id" text NOT NULL,
	"seq" integer NOT NULL,
	"query_type" text NOT NULL,
	"parameters" jsonb NOT NULL,
	"result_summary" text NOT NULL,
	"symbols" jsonb NOT NULL,
	"latency_ms" real NOT NULL,
	"cache_hit" boolean,
	"at" timestamp with time zone NOT NULL,
	CONSTRAINT "analysis_session_queries_session_id_seq_pk" PRIMARY KEY("session_id","seq")
);
--> statement-breakpoint
CREATE TABLE "analysis_session_upkeep" (
	"task" text PRIMARY KEY NOT NULL,
	"last_run_at" timestamp with time zone NOT NULL,
	"last_result" jsonb NOT NULL
);
--> statement-breakpoint
CREATE TABLE "analysis_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"user_id" text,
	"session_type" text NOT NULL,
	"assets" jsonb NOT NULL,
	"tags" jsonb NOT NULL,
	"context" jsonb NOT NULL,
	"intermediate_results" jsonb NOT NULL,
	"status" text NOT NULL,
	"archived_reason" text,
	"total_queries" integer DEFAULT 0 NOT NULL,
	"cache_known" integer DEFAULT 0 NOT NULL,
	"cache_hits" integer DEFAULT 0 NOT NULL,
	"query_types" jsonb NOT NULL,
	"created_at" timestamp with time zone NOT NULL,
	"last_accessed_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL,
	"archived_at" timestamp with time zone
);
--> statement-breakpoint
ALTER TABLE "analysis_session_queries" ADD CONSTRAINT "analysis_session_queries_session_id_analysis_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."analysis_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "analysis_sessions_owner_created_idx" ON "analysis_sessions" USING btree ("owner","created_at","id");--> statement-breakpoint
CREATE INDEX "analysis_sessions_status_expires_idx" ON "analysis_sessions" USING btree ("status","expires_at");--> statement-breakpoint
CREATE INDEX "analysis_sessions_created_idx" ON "analysis_sessions" USING btree ("created_at");