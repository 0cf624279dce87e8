// Child process of the drains bench: a syslog receiver (TCP, octet-counted frames) away from the server's process,
// so that the bench's CPU time is the server's alone. It counts the numbered lines of one app ("line <n> <write
// time>") and how long after the app wrote them they arrived; "report" answers with what it has and starts over.
import net from "node:net";

const appName = process.argv[2];
let seen = new Set();
let latencies = [];
let malformed = 0;
const LINE = /^<\d+>1 \S+ \S+ (\S+) \S+ \S+ - line (\d+) (\d+)$/;

const server = net.createServer((socket) => {
  let buffer = Buffer.alloc(0);
  socket.on("error", () => {});
  socket.on("data", (chunk) => {
    buffer = buffer.length ? Buffer.concat([buffer, chunk]) : chunk;
    const now = Date.now();
    for (;;) {
      const space = buffer.indexOf(0x20);
      if (space === -1) break;
      const length = Number(buffer.subarray(0, space).toString("latin1"));
      if (!Number.isInteger(length) || length <= 0) {
        malformed += 1;
        socket.destroy();
        return;
      }
      if (buffer.length < space + 1 + length) break;
      const match = LINE.exec(buffer.subarray(space + 1, space + 1 + length).toString("utf8"));
      buffer = buffer.subarray(space + 1 + length);
      if (!match || match[1] !== appName) continue;
      seen.add(Number(match[2]));
      latencies.push(now - Number(match[3]));
    }
  });
});
server.listen(0, "127.0.0.1", () => process.send({ kind: "listening", port: server.address().port }));
process.on("message", (message) => {
  if (message !== "report") return;
  process.send({ kind: "report", seen: seen.size, latencies, malformed });
  seen = new Set();
  latencies = [];
});
