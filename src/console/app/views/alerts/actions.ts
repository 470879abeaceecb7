/**
 * What the alerts view does to alerts: test-send, enable/disable, edit, delete (after a
 * confirmation), with the alert's buttons waiting meanwhile and each outcome told in words.
 */
import { useState } from 'preact/hooks';
import { type ApiError, mutate } from '../../api.ts';
import { go } from '../../router.ts';
import type { RowActions } from './alert-list.tsx';
import { type Alert, DELETE_ALERT, DISABLE_ALERT, ENABLE_ALERT, TEST_ALERT, type TestSend } from './model.ts';

export type Editing = { alert?: Alert } | null;
export interface Test {
  alertId: string;
  result?: TestSend;
  error?: ApiError;
}

export function useAlertActions(refetch: () => void, param: string | undefined) {
  const [editing, setEditing] = useState<Editing>(null);
  const [test, setTest] = useState<Test | null>(null);
  const [confirm, setConfirm] = useState<Alert | null>(null);
  const [busy, setBusy] = useState<string | undefined>(undefined);
  const [notice, setNotice] = useState('');
  const [failure, setFailure] = useState<ApiError | undefined>(undefined);
  // A test-send adds to the record: the open delivery log fetches again when one ends.
  const [sent, setSent] = useState(0);
  /** One action on one alert: its buttons wait, a failure is told in words. */
  const act = async (a: Alert, run: () => Promise<void>) => {
    setBusy(a.alertId);
    setFailure(undefined);
    try {
      await run();
    } catch (e) {
      setFailure(e as ApiError);
    } finally {
      setBusy(undefined);
    }
  };
  const actions: RowActions = {
    onTest: (a: Alert) => {
      setTest({ alertId: a.alertId });
      void act(a, async () => {
        try {
          const d = await mutate<{ testAlert: TestSend }>(TEST_ALERT, { id: a.alertId });
          setTest({ alertId: a.alertId, result: d.testAlert });
        } catch (e) {
          setTest({ alertId: a.alertId, error: e as ApiError });
        }
        setSent((n) => n + 1);
      });
    },
    onToggle: (a: Alert) =>
      act(a, async () => {
        await mutate(a.enabled ? DISABLE_ALERT : ENABLE_ALERT, { id: a.alertId });
        setNotice(`Alert ${a.alertId} ${a.enabled ? 'disabled' : 'enabled'}.`);
        refetch();
      }),
    onEdit: (a: Alert) => setEditing({ alert: a }),
    onDelete: (a: Alert) => setConfirm(a),
    onDeliveries: (a: Alert) => go('alerts', a.alertId),
  };
  const remove = (a: Alert) =>
    act(a, async () => {
      setConfirm(null);
      await mutate(DELETE_ALERT, { id: a.alertId });
      setNotice(`Alert ${a.alertId} deleted.`);
      if (param === a.alertId) go('alerts');
      if (test?.alertId === a.alertId) setTest(null);
      refetch();
    });
  const saved = (a: Alert, created: boolean) => {
    setEditing(null);
    setNotice(`Alert ${a.alertId} ${created ? 'created' : 'saved'}.`);
    refetch();
  };

  return {
    editing,
    setEditing,
    test,
    setTest,
    confirm,
    setConfirm,
    busy,
    notice,
    failure,
    sent,
    actions,
    remove,
    saved,
  };
}
