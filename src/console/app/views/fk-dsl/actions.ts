/**
 * What the editor's buttons do: run and wait, submit and poll the task until it is done, explain.
 * One action at a time; a newer one (or leaving the view) stops the polling of an older task.
 */
import { useEffect, useRef, useState } from 'preact/hooks';
import { EXECUTE, EXPLAIN, type Execution, type Plan, SUBMIT, TASK, type Task } from './queries.ts';
import { call, type QueryProblem } from './run.ts';

export type Busy = 'run' | 'task' | 'explain' | undefined;

export interface FkState {
  readonly busy: Busy;
  readonly execution: Execution | undefined;
  readonly plans: readonly Plan[] | undefined;
  readonly task: Task | undefined;
  readonly problem: QueryProblem | undefined;
}

const POLL_MS = 1_000;

export function useFkDsl() {
  const [state, setState] = useState<FkState>({
    busy: undefined,
    execution: undefined,
    plans: undefined,
    task: undefined,
    problem: undefined,
  });
  const round = useRef(0);
  useEffect(
    () => () => {
      round.current++;
    },
    [],
  );

  function start(busy: Busy, keep: Partial<FkState> = {}): number {
    round.current++;
    setState((s) => ({ ...s, busy, problem: undefined, ...keep }));
    return round.current;
  }
  const patch = (mine: number, change: Partial<FkState>) => {
    if (mine === round.current) setState((s) => ({ ...s, ...change }));
  };

  async function run(query: string, sessionId: string | undefined) {
    const mine = start('run', { task: undefined });
    const out = await call<{ executeFkDsl: Execution }>('query', EXECUTE, { query, sessionId });
    if (out.ok) patch(mine, { busy: undefined, execution: out.data.executeFkDsl });
    else patch(mine, { busy: undefined, problem: out.problem });
  }

  async function explain(query: string) {
    const mine = start('explain');
    const out = await call<{ explainFkDsl: Plan[] }>('query', EXPLAIN, { query });
    if (out.ok) patch(mine, { busy: undefined, plans: out.data.explainFkDsl });
    else patch(mine, { busy: undefined, problem: out.problem });
  }

  async function submit(query: string, sessionId: string | undefined) {
    const mine = start('task', { task: undefined, execution: undefined });
    const out = await call<{ submitFkDsl: Task }>('mutation', SUBMIT, { query, sessionId });
    if (!out.ok) return patch(mine, { busy: undefined, problem: out.problem });
    let task: Task = {
      ...out.data.submitFkDsl,
      startedAt: null,
      finishedAt: null,
      error: null,
      result: null,
    };
    patch(mine, { task });
    while (mine === round.current && (task.status === 'QUEUED' || task.status === 'RUNNING')) {
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      if (mine !== round.current) return;
      const polled = await call<{ fkDslTask: Task }>('query', TASK, { taskId: task.taskId });
      if (!polled.ok) return patch(mine, { busy: undefined, problem: polled.problem });
      task = polled.data.fkDslTask;
      patch(mine, { task });
    }
    patch(mine, { busy: undefined, execution: task.result ?? undefined });
  }

  return { state, run, explain, submit };
}
