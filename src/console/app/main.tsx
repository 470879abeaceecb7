import { render } from 'preact';
import { App } from './app.tsx';
import 'uplot/dist/uPlot.min.css';
import './styles.css';

render(<App />, document.getElementById('app')!);
