// The app behind the proxies: a tiny Node HTTP server answering `ok`, run as its own process so it has its
// own event loop (as a deployed app does). Prints its port on stdout once listening.
import http from "node:http";

const server = http.createServer((_req, res) => {
  res.writeHead(200, { "content-type": "text/plain", "content-length": "2" });
  res.end("ok");
});
server.keepAliveTimeout = 60_000;
server.listen(0, "127.0.0.1", () => process.stdout.write(`${server.address().port}\n`));
process.on("SIGTERM", () => server.close(() => process.exit(0)));
