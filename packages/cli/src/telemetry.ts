// OpenTelemetry trace export for `legion`: core emits its spans through @opentelemetry/api, which
// records nothing until someone registers an SDK. `legion` registers one, with an OTLP/HTTP
// exporter, only when the standard variables name an endpoint; otherwise nothing of the SDK loads.

/** This package's version, written in by the build (scripts/build.mjs). */
declare const LEGION_VERSION: string;

/** Ends the export: what is still buffered is sent (bounded by the exporter's own timeout). */
export type StopTelemetry = () => Promise<void>;

/** Whether the environment asks for traces: an OTLP endpoint is named and neither the SDK nor trace export is turned off. */
export function telemetryWanted(env: NodeJS.ProcessEnv): boolean {
  if (!env['OTEL_EXPORTER_OTLP_ENDPOINT'] && !env['OTEL_EXPORTER_OTLP_TRACES_ENDPOINT']) return false;
  if (env['OTEL_SDK_DISABLED']?.trim().toLowerCase() === 'true') return false;
  return env['OTEL_TRACES_EXPORTER']?.trim().toLowerCase() !== 'none';
}

/**
 * Registers a tracer provider that batches spans to the OTLP endpoint. The exporter reads the
 * usual variables itself (OTEL_EXPORTER_OTLP_[TRACES_]ENDPOINT, _HEADERS, _TIMEOUT); the
 * resource is `service.name` `legion` unless OTEL_SERVICE_NAME or OTEL_RESOURCE_ATTRIBUTES say
 * otherwise. Undefined when the environment does not ask for it.
 */
export async function startTelemetry(env: NodeJS.ProcessEnv = process.env): Promise<StopTelemetry | undefined> {
  if (!telemetryWanted(env)) return undefined;
  const [
    { context, trace },
    { AsyncLocalStorageContextManager },
    { BasicTracerProvider, BatchSpanProcessor },
    { OTLPTraceExporter },
    { defaultResource, detectResources, envDetector, resourceFromAttributes },
  ] = await Promise.all([
    import('@opentelemetry/api').then(namespaceOf),
    import('@opentelemetry/context-async-hooks').then(namespaceOf),
    import('@opentelemetry/sdk-trace-base').then(namespaceOf),
    import('@opentelemetry/exporter-trace-otlp-http').then(namespaceOf),
    import('@opentelemetry/resources').then(namespaceOf),
  ]);
  const resource = defaultResource()
    .merge(
      resourceFromAttributes({ 'service.name': 'legion', 'service.version': typeof LEGION_VERSION === 'string' ? LEGION_VERSION : 'dev' }),
    )
    .merge(detectResources({ detectors: [envDetector] }));
  const provider = new BasicTracerProvider({ resource, spanProcessors: [new BatchSpanProcessor(new OTLPTraceExporter())] });
  // An application embedding the CLI's code that registered its own provider keeps it.
  if (!trace.setGlobalTracerProvider(provider)) return undefined;
  // Core passes its own spans' parents explicitly; this lets the provider SDKs' spans (the Anthropic
  // SDK traces its API calls) find the model call they belong to.
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
  let stopping: Promise<void> | undefined;
  return () =>
    (stopping ??= provider.shutdown().catch(async (error: unknown) => {
      const { stderr } = await import('./render/terminal-text.js');
      stderr.write(`legion: could not send traces to the OTLP endpoint: ${error instanceof Error ? error.message : String(error)}\n`);
    }));
}

/**
 * The SDK packages are CommonJS to the bundler (their `main`), and a bundled `import()` of one
 * yields `{ default: exports }` (scripts/build.mjs turns every chunk into CommonJS): its names are
 * under `default`. Unbundled (tests importing the sources), Node gives them at the top level.
 */
function namespaceOf<Namespace extends object>(module: Namespace): Namespace {
  const inner = (module as { default?: unknown }).default;
  return typeof inner === 'object' && inner !== null ? (inner as Namespace) : module;
}
