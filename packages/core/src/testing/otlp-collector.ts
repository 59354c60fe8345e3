// A stand-in OpenTelemetry collector for tests: a real OTLP/HTTP endpoint that decodes what a
// real exporter (the SDK's, in another process) sends, so a test can check spans across processes.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

/** OTLP/HTTP JSON (opentelemetry-proto's JSON mapping), as much of it as tests read. */
const AnyValueSchema = z.object({
  stringValue: z.string().optional(),
  intValue: z.union([z.number(), z.string()]).optional(),
  doubleValue: z.number().optional(),
  boolValue: z.boolean().optional(),
});
const AttributesSchema = z.array(z.object({ key: z.string(), value: AnyValueSchema })).default([]);
const ExportRequestSchema = z.object({
  resourceSpans: z.array(
    z.object({
      resource: z.object({ attributes: AttributesSchema }),
      scopeSpans: z.array(
        z.object({
          scope: z.object({ name: z.string() }),
          spans: z.array(
            z.object({
              traceId: z.string(),
              spanId: z.string(),
              parentSpanId: z.string().optional(),
              name: z.string(),
              attributes: AttributesSchema,
              events: z.array(z.object({ name: z.string() })).default([]),
            }),
          ),
        }),
      ),
    }),
  ),
});

export interface ReceivedSpan {
  name: string;
  traceId: string;
  spanId: string;
  parentSpanId: string | undefined;
  scope: string;
  resource: Record<string, unknown>;
  attributes: Record<string, unknown>;
  /** The names of the span's events, in order. */
  events: string[];
}

export interface OtlpCollector {
  /** The endpoint to give as OTEL_EXPORTER_OTLP_ENDPOINT. */
  url: string;
  /** Every span received so far, in the order they came. */
  spans: ReceivedSpan[];
  /** `METHOD path content-type` of each export request. */
  paths: string[];
  close(): Promise<void>;
}

const flat = (attributes: z.infer<typeof AttributesSchema>): Record<string, unknown> =>
  Object.fromEntries(
    attributes.map(({ key, value }) => [
      key,
      value.stringValue ?? (value.intValue !== undefined ? Number(value.intValue) : (value.doubleValue ?? value.boolValue)),
    ]),
  );

/** A collector's OTLP/HTTP trace endpoint on 127.0.0.1: decodes every export request it gets. */
export async function startOtlpCollector(): Promise<OtlpCollector> {
  const spans: ReceivedSpan[] = [];
  const paths: string[] = [];
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      paths.push(`${request.method} ${request.url} ${request.headers['content-type']}`);
      const body = ExportRequestSchema.parse(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      for (const { resource, scopeSpans } of body.resourceSpans) {
        for (const { scope, spans: received } of scopeSpans) {
          for (const span of received) {
            spans.push({
              name: span.name,
              traceId: span.traceId,
              spanId: span.spanId,
              parentSpanId: span.parentSpanId || undefined,
              scope: scope.name,
              resource: flat(resource.attributes),
              attributes: flat(span.attributes),
              events: span.events.map((event) => event.name),
            });
          }
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}`, spans, paths, close: () => new Promise((resolve) => server.close(() => resolve())) };
}
