import { render } from 'preact';
import { App } from './App.js';
import { Controller } from './state/controller.js';
import { Store } from './state/store.js';
import './styles.css';
import './live.css';

const store = new Store();
const controller = new Controller(store);
const root = document.getElementById('app');
if (root) render(<App store={store} controller={controller} />, root);
void controller.start();
