CREATE TABLE "price_feed_interest" (
	"feed_key" text NOT NULL,
	"instance" text NOT NULL,
	"instrument" jsonb NOT NULL,
	"seen_at" timestamp with time zone NOT NULL,
	CONSTRAINT "price_feed_interest_feed_key_instance_pk" PRIMARY KEY("feed_key","instance")
);
--> statement-breakpoint
CREATE TABLE "price_feed_leases" (
	"feed_key" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"acquired_at" timestamp with time zone NOT NULL,
	"expires_at" timestamp with time zone NOT NULL
);
--> statement-breakpoint
CREATE TABLE "price_relay_instances" (
	"instance" text PRIMARY KEY NOT NULL,
	"seen_at" timestamp with time zone NOT NULL
);
