// The TLS handshake rate of a server: new connections per second, each a full handshake (the client offers no
// session to resume: Node's tls.connect never does unless given one), closed as soon as it is established.
import tls from "node:tls";

export interface HandshakeRate {
  perSecond: number;
  protocol: string;
  cipher: string;
}

/** `concurrency` clients each connecting again as soon as their handshake completed, for `seconds`. */
export async function handshakeRate(port: number, servername: string, seconds: number, concurrency = 10): Promise<HandshakeRate> {
  let done = 0;
  let protocol = "";
  let cipher = "";
  const until = Date.now() + seconds * 1000;
  const one = () =>
    new Promise<void>((resolve, reject) => {
      const socket = tls.connect({ host: "127.0.0.1", port, servername, rejectUnauthorized: false, ALPNProtocols: ["http/1.1"] }, () => {
        protocol = socket.getProtocol() ?? "";
        cipher = socket.getCipher().name;
        done += 1;
        socket.destroy();
        resolve();
      });
      socket.once("error", reject);
    });
  const started = Date.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (Date.now() < until) await one();
    }),
  );
  return { perSecond: done / ((Date.now() - started) / 1000), protocol, cipher };
}
