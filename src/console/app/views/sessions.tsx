/**
 * Sessions: the caller's analysis sessions (list with analytics, paging and archived ones on
 * request) and, at #/sessions/<id>, one session's context, recorded queries and stored results.
 */
import { useState } from 'preact/hooks';
import { useStore } from '../api.ts';
import { can, viewer } from '../viewer.ts';
import { AnalyticsCard } from './sessions/analytics.tsx';
import { CreateSession } from './sessions/create.tsx';
import { SessionDetail } from './sessions/detail.tsx';
import { SessionList } from './sessions/list.tsx';

export default function Sessions({ param }: { param?: string }) {
  return (
    <div class="ses">
      <h1>Sessions</h1>
      {param ? <SessionDetail id={param} /> : <Overview />}
    </div>
  );
}

function Overview() {
  const who = useStore(viewer);
  const [creating, setCreating] = useState(false);
  return (
    <>
      {can(who, 'WRITE') && !creating ? (
        <p>
          <button type="button" class="primary" onClick={() => setCreating(true)}>
            New session
          </button>
        </p>
      ) : null}
      {creating ? <CreateSession onCancel={() => setCreating(false)} /> : null}
      <SessionList />
      <AnalyticsCard />
    </>
  );
}
