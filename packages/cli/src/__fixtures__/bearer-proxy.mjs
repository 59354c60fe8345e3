// A forwarding proxy on 127.0.0.1 that adds `Authorization: Bearer <token>` (and the target's Host)
// to every request: for MCP test clients that cannot send headers (the conformance suite's), so they
// reach a `legion mcp serve --http` endpoint that requires its token. Usage: node bearer-proxy.mjs URL TOKEN;
// prints the proxy's URL on its first line.
import { createServer, request } from 'node:http';

const [target, token] = process.argv.slice(2);
const upstream = new URL(target);
const server = createServer((incoming, outgoing) => {
  // The proxy stands in for the server: its own name becomes the server's; a foreign Host or Origin
  // (the suite's DNS-rebinding probe) is passed on as it came, for the server to refuse.
  const self = `127.0.0.1:${server.address().port}`;
  const headers = { ...incoming.headers, authorization: `Bearer ${token}` };
  if (headers.host === self) headers.host = upstream.host;
  if (headers.origin === `http://${self}`) headers.origin = upstream.origin;
  const forwarded = request(
    { host: upstream.hostname, port: upstream.port, method: incoming.method, path: incoming.url, headers },
    (answer) => {
      outgoing.writeHead(answer.statusCode ?? 502, answer.headers);
      answer.pipe(outgoing);
    },
  );
  forwarded.on('error', (error) => {
    outgoing.writeHead(502, { 'content-type': 'text/plain' });
    outgoing.end(String(error));
  });
  incoming.pipe(forwarded);
});
server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(`http://127.0.0.1:${port}${upstream.pathname}\n`);
});
