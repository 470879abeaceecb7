import { render } from 'preact';
import { App } from './app.tsx';
import 'uplot/dist/uPlot.min.css';
import './styles.css';
import './views/overview.css';
import './views/markets.css';
import './views/alerts.css';
import './views/fk-dsl.css';
import './views/sessions.css';
import './views/access.css';

render(<App />, document.getElementById('app')!);
