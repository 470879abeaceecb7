CREATE TABLE "fk_dsl_tasks" (
	"id" uuid PRIMARY KEY NOT NULL,
	"query" text NOT NULL,
	"status" text NOT NULL,
	"result" jsonb,
	"error" jsonb,
	"created_at" timestamp with time zone NOT NULL,
	"started_at" timestamp with time zone,
	"finished_at" timestamp with time zone
);
--> statement-breakpoint
CREATE INDEX "fk_dsl_tasks_finished_idx" ON "fk_dsl_tasks" USING btree ("finished_at");