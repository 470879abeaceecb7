/**
 * The overview: the watchdogs' health, the live event feed, and the last 24 h by severity. One
 * unfiltered subscription (no replay) signals each new event, so the board and the counts refresh
 * soon after it whatever filter the feed uses.
 */
import { useState } from 'preact/hooks';
import { useSubscription } from '../api.ts';
import { LiveEventsCard } from './overview/events.tsx';
import { ARRIVALS_SUBSCRIPTION } from './overview/model.ts';
import { useRecent } from './overview/recent.ts';
import { SeverityCard } from './overview/severity.tsx';
import { WatchdogsCard } from './overview/watchdogs.tsx';

export default function Overview(_props: { param?: string }) {
  const [arrivals, setArrivals] = useState(0);
  // Errors of this signal are not shown: the feed's own subscription reports the same trouble.
  useSubscription(ARRIVALS_SUBSCRIPTION, {}, () => setArrivals((n) => n + 1));
  const recent = useRecent(arrivals);
  return (
    <div class="overview">
      <h1>Overview</h1>
      <WatchdogsCard signal={arrivals} today={recent.data?.todayByWatchdog} />
      <div class="ov-grid">
        <LiveEventsCard />
        <SeverityCard recent={recent.data} error={recent.error} />
      </div>
    </div>
  );
}
