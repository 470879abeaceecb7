CREATE TABLE "market_data_shared_cache" (
	"key" text PRIMARY KEY NOT NULL,
	"payload" text NOT NULL,
	"bytes" integer NOT NULL,
	"ttl_ms" integer NOT NULL,
	"written_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE INDEX "market_data_shared_cache_expires_idx" ON "market_data_shared_cache" USING btree ("expires_at");