CREATE TABLE "watchdog_depth_samples" (
	"symbol" text NOT NULL,
	"venue" text NOT NULL,
	"sampled_at" timestamp with time zone NOT NULL,
	"depth" double precision NOT NULL,
	CONSTRAINT "watchdog_depth_samples_symbol_venue_sampled_at_pk" PRIMARY KEY("symbol","venue","sampled_at")
);
