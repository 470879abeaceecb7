/**
 * FK-DSL: an editor with the documented examples; a query runs and waits (executeFkDsl), runs as a
 * background task whose status is polled (submitFkDsl, fkDslTask), or is explained (explainFkDsl).
 */
import { useRef, useState } from 'preact/hooks';
import { useStore } from '../api.ts';
import { StoredValue } from '../store.ts';
import { Badge, Card, Empty, formatTime } from '../ui.tsx';
import { can, viewer } from '../viewer.ts';
import { useFkDsl } from './fk-dsl/actions.ts';
import { EXAMPLES } from './fk-dsl/examples.ts';
import { MetricReference } from './fk-dsl/metrics.tsx';
import { PlanView } from './fk-dsl/plan.tsx';
import { offsetOf, PROBLEM_ID, ProblemNote } from './fk-dsl/problem.tsx';
import type { Task } from './fk-dsl/queries.ts';
import { ExecutionView } from './fk-dsl/results.tsx';

// The editor's text survives a reload and a visit to another view.
const draft = new StoredValue<string>('vigil.fkdsl.query', EXAMPLES[0]!.query);

/** `param` (#/fk-dsl/<session id>, linked from a session's page) fills in the session id. */
export default function FkDsl({ param }: { param?: string }) {
  const who = useStore(viewer);
  const query = useStore(draft);
  const [example, setExample] = useState('');
  const [sessionId, setSessionId] = useState(param ?? '');
  const editor = useRef<HTMLTextAreaElement>(null);
  const { state, run, explain, submit } = useFkDsl();
  const { busy, execution, plans, task, problem } = state;
  const session = sessionId.trim() || undefined;
  const empty = !query.trim();

  const onKey = (e: KeyboardEvent) => {
    if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
      e.preventDefault();
      if (!empty && !busy) run(query, session);
    }
  };
  const locate = () => {
    const el = editor.current;
    if (!el || problem?.line === undefined) return;
    const at = offsetOf(query, problem.line, problem.column ?? 1);
    el.focus();
    el.setSelectionRange(at, Math.min(at + 1, query.length));
  };

  return (
    <div class="fk">
      <h1>FK-DSL</h1>
      <Card title="Editor">
        <div class="row fk-toolbar">
          <label for="fk-example">Example</label>
          <select
            id="fk-example"
            value={example}
            onChange={(e) => {
              const picked = EXAMPLES.find((x) => x.label === e.currentTarget.value);
              setExample(e.currentTarget.value);
              if (picked) draft.set(picked.query);
            }}
          >
            <option value="">Choose an example…</option>
            {EXAMPLES.map((x) => (
              <option key={x.label} value={x.label}>
                {x.label}
              </option>
            ))}
          </select>
        </div>
        <label for="fk-query">Query</label>
        <textarea
          id="fk-query"
          ref={editor}
          class="fk-editor"
          rows={6}
          spellcheck={false}
          autocapitalize="off"
          value={query}
          onInput={(e) => draft.set(e.currentTarget.value)}
          onKeyDown={onKey}
          aria-invalid={problem ? 'true' : undefined}
          aria-describedby={problem ? `${PROBLEM_ID} fk-query-hint` : 'fk-query-hint'}
        />
        <p class="hint" id="fk-query-hint">
          Statements separated by <code>;</code>. Ctrl+Enter (⌘+Enter) runs the query.
        </p>
        <label for="fk-session">Session id (optional)</label>
        <input
          id="fk-session"
          class="fk-session"
          value={sessionId}
          onInput={(e) => setSessionId(e.currentTarget.value)}
          placeholder="record the run in an analysis session"
          aria-describedby="fk-session-hint"
        />
        <p class="hint" id="fk-session-hint">
          Given a session id, the run is recorded in that session's history.
        </p>
        <div class="row fk-actions">
          <button
            type="button"
            class="primary"
            disabled={empty || !!busy}
            onClick={() => run(query, session)}
          >
            {busy === 'run' ? 'Running…' : 'Run'}
          </button>
          {can(who, 'WRITE') ? (
            <button type="button" disabled={empty || !!busy} onClick={() => submit(query, session)}>
              {busy === 'task' ? 'Task running…' : 'Run as task'}
            </button>
          ) : null}
          <button type="button" disabled={empty || !!busy} onClick={() => explain(query)}>
            {busy === 'explain' ? 'Explaining…' : 'Explain'}
          </button>
        </div>
        {problem ? <ProblemNote problem={problem} onLocate={locate} /> : null}
        <MetricReference />
      </Card>
      {task ? <TaskCard task={task} /> : null}
      {plans ? (
        <Card title="Plan">
          {plans.length ? (
            plans.map((p, i) => <PlanView key={`${i}`} plan={p} index={i} />)
          ) : (
            <Empty>Nothing to plan.</Empty>
          )}
        </Card>
      ) : null}
      <Card title="Results">
        {execution ? (
          <ExecutionView execution={execution} />
        ) : (
          <Empty>
            {busy === 'run' || busy === 'task'
              ? 'Waiting for the results…'
              : 'No results yet: choose an example or write a query, then Run.'}
          </Empty>
        )}
      </Card>
    </div>
  );
}

const TONE: Record<Task['status'], string> = {
  QUEUED: 'muted',
  RUNNING: 'info',
  COMPLETED: 'ok',
  FAILED: 'error',
};

function TaskCard({ task }: { task: Task }) {
  return (
    <Card title="Task">
      <p role="status" aria-live="polite">
        Task <code>{task.taskId}</code>: <Badge tone={TONE[task.status]}>{task.status.toLowerCase()}</Badge>
      </p>
      <dl class="fk-facts">
        <div>
          <dt>Submitted</dt>
          <dd>{formatTime(task.createdAt)}</dd>
        </div>
        <div>
          <dt>Started</dt>
          <dd>{formatTime(task.startedAt)}</dd>
        </div>
        <div>
          <dt>Finished</dt>
          <dd>{formatTime(task.finishedAt)}</dd>
        </div>
      </dl>
      {task.error ? (
        <p class="error-note" role="alert">
          {task.error.message} ({task.error.code})
        </p>
      ) : null}
    </Card>
  );
}
