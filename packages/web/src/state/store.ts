import { useEffect, useState } from 'preact/hooks';
import { initialState, type AppState } from './app-state.js';

type Listener = (state: AppState) => void;

/** The one state of the app; views read it through `useAppState` and never change it themselves. */
export class Store {
  #state: AppState = initialState;
  readonly #listeners = new Set<Listener>();

  get state(): AppState {
    return this.#state;
  }

  #frame: number | null = null;

  /**
   * Changes the state now; views hear of it at the next frame, once however many events came
   * in between (a streaming reply brings dozens a second, and every tab of the app renders them).
   */
  update(change: (state: AppState) => AppState): void {
    const next = change(this.#state);
    if (next === this.#state) return;
    this.#state = next;
    this.#frame ??= requestAnimationFrame(() => {
      this.#frame = null;
      for (const listener of this.#listeners) listener(this.#state);
    });
  }

  subscribe(listener: Listener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }
}

export function useAppState(store: Store): AppState {
  const [state, setState] = useState(store.state);
  useEffect(() => {
    setState(store.state);
    return store.subscribe(setState);
  }, [store]);
  return state;
}
