/**
 * The caller's silences on the alerts view: the list (refreshed every few seconds, as pending ones
 * start and active ones end), "Expire" on active ones, and the form to create one. A silence holds
 * firings of every matching alert at once, so it lives beside the alert list rather than in one
 * alert's form.
 */
import { useState } from 'preact/hooks';
import { type ApiError, mutate, useQuery, useStore } from '../../api.ts';
import { Card, Empty, ErrorNote, Loading } from '../../ui.tsx';
import { viewer } from '../../viewer.ts';
import { SilenceForm } from './silence-form.tsx';
import { SilenceList } from './silence-list.tsx';
import { EXPIRE_SILENCE, SILENCES_QUERY, type Silence } from './silence-model.ts';
import { useEvery } from './use-every.ts';

const REFRESH_MS = 10_000;

export function Silences({ writable }: { writable: boolean }) {
  const me = useStore(viewer)?.id;
  const [showExpired, setShowExpired] = useState(true);
  const list = useQuery<{ alertSilences: Silence[] }>(SILENCES_QUERY, { all: showExpired }, [showExpired]);
  useEvery(REFRESH_MS, list.refetch);
  const [creating, setCreating] = useState(false);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [failure, setFailure] = useState<ApiError | undefined>(undefined);

  const expire = async (s: Silence) => {
    setBusy(s.id);
    setFailure(undefined);
    try {
      await mutate(EXPIRE_SILENCE, { id: s.id });
      setNotice(`Silence "${s.comment}" expired: matching firings deliver again.`);
      list.refetch();
    } catch (e) {
      setFailure(e as ApiError);
    } finally {
      setBusy(undefined);
    }
  };
  const created = (s: Silence) => {
    setCreating(false);
    setNotice(`Silence "${s.comment}" created (${s.state.toLowerCase()}).`);
    list.refetch();
  };

  const silences = list.data?.alertSilences;
  const actions = (
    <>
      <label class="inline">
        <input
          type="checkbox"
          checked={showExpired}
          onChange={(e) => setShowExpired((e.target as HTMLInputElement).checked)}
        />
        Show expired
      </label>
      {writable && !creating ? (
        <button type="button" class="primary" onClick={() => setCreating(true)}>
          New silence
        </button>
      ) : null}
    </>
  );
  return (
    <>
      {creating ? <SilenceForm onCreated={created} onCancel={() => setCreating(false)} /> : null}
      <Card title="Silences" actions={actions}>
        <p class="al-notice" role="status">
          {notice}
        </p>
        {failure ? <ErrorNote error={failure} /> : null}
        {list.error ? <ErrorNote error={list.error} action={list.refetch} /> : null}
        {!silences && !list.error ? <Loading what="silences" /> : null}
        {silences && silences.length === 0 ? (
          <Empty>
            No silences{showExpired ? '' : ' in force or to come'}. A silence keeps matching firings of your
            alerts quiet for a while: they are recorded as silenced and deliver nothing.
          </Empty>
        ) : null}
        {silences && silences.length > 0 ? (
          <SilenceList silences={silences} me={me} writable={writable} busy={busy} onExpire={expire} />
        ) : null}
      </Card>
    </>
  );
}
