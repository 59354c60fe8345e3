import { prepareCommandProcess } from './start-up.js';
import { startTelemetry } from './telemetry.js';

export interface RunCliOptions {
  /**
   * Exit once the command is done and its output written, rather than when the event loop runs
   * dry: before a natural exit Node runs V8's pending background work to its end (incremental
   * marking, optimizing compiles), which a busy machine made 10–150 ms after `legion run` had
   * printed its reply. Only for commands that leave nothing running when they return.
   */
  exitWhenDone?: boolean;
}

/**
 * Runs a command and turns failures into one clear line on stderr and a
 * non-zero exit code. Legion's own errors already say what is wrong and how to
 * fix it; a stack trace is shown only with LEGION_DEBUG=1.
 */
export async function runCli(command: () => Promise<number | void>, options: RunCliOptions = {}): Promise<void> {
  await prepareCommandProcess();
  // The SDK loads only when an OTLP endpoint is configured: a plain start reads a few variables.
  const stopTelemetry = await startTelemetry(process.env);
  const signals = stopTelemetry && !options.exitWhenDone ? flushOnSignals(stopTelemetry) : undefined;
  try {
    const code = await command();
    process.exitCode = code ?? 0;
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The message may quote a model, a file or a server: written through the terminal writer. Loaded
    // here, on failure only: a static import would add a bundle chunk to every command's start-up.
    // Made inert whole: a message carries no colour of Legion's own, and one quoting a model must not paint any.
    const { stderr, inert } = await import('./render/terminal-text.js');
    stderr.write(`legion: ${inert(message)}\n`);
    if (process.env.LEGION_DEBUG && error instanceof Error && error.stack) stderr.write(`${error.stack}\n`);
    process.exitCode = 1;
  }
  if (stopTelemetry) {
    // A command that leaves work running (a server, a REPL's surfaces) sends the rest when the process winds down.
    if (options.exitWhenDone) await stopTelemetry();
    else if (signals?.stopped()) {
      // Stopped by a signal: send the spans now (bounded) rather than wait for an event loop that may never run dry.
      signals.unwatch();
      await boundedFlush(stopTelemetry);
    } else
      process.once('beforeExit', () => {
        signals?.unwatch();
        void stopTelemetry();
      });
  }
  if (options.exitWhenDone) {
    // Where stdout or stderr is written asynchronously (pipes outside Linux, Windows terminals), what is queued goes out first.
    await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
    process.exit();
  }
}

/** Settles when what was written to `stream` before has been handed to the system (or the stream has failed). */
function flushed(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => {
    if (stream.destroyed || stream.writableEnded) resolve();
    else stream.write('', () => resolve());
  });
}

/** How long a stop signal waits for the buffered spans to go out before the process ends anyway (an endpoint that does not answer must not keep it alive). */
const SIGNAL_FLUSH_LIMIT_MS = 3000;
const STOP_SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/**
 * A command that stops on SIGINT/SIGTERM by itself (`legion serve`, `legion mcp serve`) returns
 * and its spans go out on `beforeExit`; one that does not (the REPL) would die with its spans
 * still buffered. For that one, a signal sends them first (bounded), then ends the process by the
 * same signal, as it would have ended without telemetry. Returns the disposer.
 */
function flushOnSignals(stopTelemetry: () => Promise<void>): { unwatch(): void; stopped(): boolean } {
  let stopped = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    stopped = true;
    // The command's own handler winds it down; runCli sends the spans once it has returned.
    if (process.listenerCount(signal) > 1) return;
    unwatch();
    void boundedFlush(stopTelemetry).finally(() => process.kill(process.pid, signal));
  };
  const unwatch = (): void => {
    for (const signal of STOP_SIGNALS) process.off(signal, onSignal);
  };
  for (const signal of STOP_SIGNALS) process.on(signal, onSignal);
  return { unwatch, stopped: () => stopped };
}

function boundedFlush(stopTelemetry: () => Promise<void>): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const limit = new Promise<void>((resolve) => (timer = setTimeout(resolve, SIGNAL_FLUSH_LIMIT_MS)));
  return Promise.race([stopTelemetry(), limit]).finally(() => clearTimeout(timer));
}
