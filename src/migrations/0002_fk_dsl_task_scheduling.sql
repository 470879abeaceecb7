ALTER TABLE "fk_dsl_tasks" ADD COLUMN "client_id" text;--> statement-breakpoint
ALTER TABLE "fk_dsl_tasks" ADD COLUMN "instance_id" text;--> statement-breakpoint
ALTER TABLE "fk_dsl_tasks" ADD COLUMN "attempts" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
CREATE INDEX "fk_dsl_tasks_pending_idx" ON "fk_dsl_tasks" USING btree ("client_id","created_at") WHERE "fk_dsl_tasks"."status" in ('queued', 'running');--> statement-breakpoint
CREATE INDEX "fk_dsl_tasks_client_started_idx" ON "fk_dsl_tasks" USING btree ("client_id","started_at");