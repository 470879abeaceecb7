/**
 * The shell: the header (views, connection, theme, who is signed in), the simulated-market banner,
 * and the current view, loaded on first visit (a view's libraries, such as the charts, load with it).
 */
import type { FunctionComponent } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { apiError, apiKey, connection, fetchQuery, signOut, useQuery, useStore, whenRefused } from './api.ts';
import { route } from './router.ts';
import { StoredValue } from './store.ts';
import { ErrorNote, Loading } from './ui.tsx';
import { VIEWER_QUERY, type Viewer, viewer } from './viewer.ts';
import { SignIn } from './views/sign-in.tsx';

type ViewModule = { default: FunctionComponent<{ param?: string }> };

const VIEWS: readonly { id: string; label: string; load: () => Promise<ViewModule> }[] = [
  { id: 'overview', label: 'Overview', load: () => import('./views/overview.tsx') },
  { id: 'markets', label: 'Markets', load: () => import('./views/markets.tsx') },
  { id: 'alerts', label: 'Alerts', load: () => import('./views/alerts.tsx') },
  { id: 'fk-dsl', label: 'FK-DSL', load: () => import('./views/fk-dsl.tsx') },
  { id: 'sessions', label: 'Sessions', load: () => import('./views/sessions.tsx') },
  { id: 'access', label: 'Access', load: () => import('./views/access.tsx') },
];

export const theme = new StoredValue<'light' | 'dark' | 'system'>('vigil.theme', 'system');

function applyTheme(value: 'light' | 'dark' | 'system'): void {
  const dark =
    value === 'dark' || (value === 'system' && window.matchMedia('(prefers-color-scheme: dark)').matches);
  document.documentElement.dataset.theme = dark ? 'dark' : 'light';
}

// A key the server refuses on the live connection (revoked, expired) ends the sign-in.
whenRefused(() => {
  if (apiKey.get()) signOut();
  viewer.set(null);
});

export function App() {
  const current = useStore(route);
  const who = useStore(viewer);
  const [checked, setChecked] = useState<string | undefined>(undefined);

  useEffect(() => {
    applyTheme(theme.get());
    return theme.subscribe(applyTheme);
  }, []);

  // Who is calling: anonymous (no AUTH_REQUIRED), a key, or nobody yet (a sign-in is needed).
  useEffect(() => {
    fetchQuery<{ viewer: Viewer }>(VIEWER_QUERY)
      .then((data) => viewer.set(data.viewer))
      .catch((error) => {
        const e = apiError(error);
        if (e.code === 'UNAUTHENTICATED' || e.code === 'FORBIDDEN') viewer.set(null);
        else setChecked(e.message);
      });
  }, [who === undefined]);

  const view = VIEWS.find((v) => v.id === current.view) ?? VIEWS[0]!;
  return (
    <>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <a class="brand" href="#/overview">
          Vigil
        </a>
        <nav aria-label="Views">
          <ul>
            {VIEWS.map((v) => (
              <li key={v.id}>
                <a href={`#/${v.id}`} aria-current={v.id === view.id ? 'page' : undefined}>
                  {v.label}
                </a>
              </li>
            ))}
          </ul>
        </nav>
        <div class="top-end">
          <ConnectionStatus />
          <ThemeSwitch />
          {who && who.kind !== 'ANONYMOUS' ? (
            <span class="who">
              <span title={`scopes: ${who.scopes.join(', ').toLowerCase()}`}>{who.name}</span>
              <button
                type="button"
                class="link"
                onClick={() => {
                  signOut();
                  viewer.set(undefined);
                }}
              >
                Sign out
              </button>
            </span>
          ) : null}
        </div>
      </header>
      <section aria-label="Notices">
        <ConnectionNotice />
        {who ? <SimulatedBanner /> : null}
      </section>
      <main id="main" tabIndex={-1}>
        {checked ? (
          <ErrorNote error={`Vigil could not be reached: ${checked}`} action={() => location.reload()} />
        ) : who === undefined ? (
          <Loading what="the console" />
        ) : who === null ? (
          <SignIn />
        ) : (
          <LazyView key={`${view.id}|${who.id}`} load={view.load} param={current.param} label={view.label} />
        )}
      </main>
    </>
  );
}

function LazyView({
  load,
  param,
  label,
}: {
  load: () => Promise<ViewModule>;
  param: string | undefined;
  label: string;
}) {
  const [View, setView] = useState<ViewModule['default'] | undefined>(undefined);
  const [failed, setFailed] = useState<string | undefined>(undefined);
  useEffect(() => {
    let live = true;
    load()
      .then((m) => live && setView(() => m.default))
      .catch(() => live && setFailed(`The ${label} view could not be loaded. Reload the page.`));
    document.title = `${label} · Vigil`;
    return () => {
      live = false;
    };
  }, [load]);
  if (failed) return <ErrorNote error={failed} action={() => location.reload()} />;
  if (!View) return <Loading what={label} />;
  return <View param={param} />;
}

function ConnectionStatus() {
  const { state } = useStore(connection);
  const label = {
    connecting: 'Connecting',
    connected: 'Live',
    reconnecting: 'Reconnecting',
    refused: 'Not signed in',
  }[state];
  return (
    <span class={`conn conn-${state}`} role="status" aria-label={`Connection: ${label}`}>
      <span class="dot" aria-hidden="true" />
      {label}
    </span>
  );
}

/** Says when the live connection dropped, and when it came back. */
function ConnectionNotice() {
  const { state, drops } = useStore(connection);
  const [shown, setShown] = useState(false);
  useEffect(() => {
    if (state === 'reconnecting') setShown(true);
    if (state === 'connected' && drops > 0) {
      const timer = setTimeout(() => setShown(false), 5_000);
      return () => clearTimeout(timer);
    }
    return undefined;
  }, [state, drops]);
  if (!shown) return null;
  return (
    <div
      class={`notice ${state === 'connected' ? 'notice-ok' : 'notice-warn'}`}
      role="status"
      aria-live="polite"
    >
      {state === 'connected'
        ? 'Reconnected: live data is flowing again.'
        : 'Connection to Vigil lost: reconnecting… Live views resume by themselves.'}
    </div>
  );
}

function ThemeSwitch() {
  const value = useStore(theme);
  const next = value === 'system' ? 'dark' : value === 'dark' ? 'light' : 'system';
  return (
    <button
      type="button"
      class="theme"
      onClick={() => theme.set(next)}
      aria-label={`Theme: ${value}. Switch to ${next}`}
    >
      {value === 'dark' ? '☾' : value === 'light' ? '☀' : '◐'}
    </button>
  );
}

const PROVIDERS_QUERY = '{ marketDataProviders { id displayName live } }';

function SimulatedBanner() {
  const { data } = useQuery<{ marketDataProviders: { id: string; displayName: string; live: boolean }[] }>(
    PROVIDERS_QUERY,
  );
  const providers = data?.marketDataProviders ?? [];
  if (!providers.some((p) => !p.live)) return null;
  const onlySimulated = providers.every((p) => !p.live);
  return (
    <div class="banner" role="note">
      <strong>Simulated market data.</strong>{' '}
      {onlySimulated
        ? 'Prices, events and history are generated, not real. Set MARKET_DATA_PROVIDERS for live data.'
        : 'Some values come from the simulated market; each answer names its provider.'}
    </div>
  );
}
