import { render } from 'preact';
import { App } from './App.js';
import { Controller } from './state/controller.js';
import { Store } from './state/store.js';
import './styles.css';
import './act.css';
import './read.css';
import './live.css';
import './a11y.css';
import { applyTheme, savedTheme } from './views/theme.js';

// Before the first render: a remembered dark theme never flashes light.
applyTheme(savedTheme(), false);
const store = new Store();
const controller = new Controller(store);
const root = document.getElementById('app');
if (root) render(<App store={store} controller={controller} />, root);
void controller.start();
