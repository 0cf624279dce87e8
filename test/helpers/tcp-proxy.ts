// A TCP proxy in front of a server (PostgreSQL), whose traffic a test can stop without closing anything: a network
// partition as the client sees it (its queries hang, nothing fails fast).
import net from "node:net";

export interface TcpProxy {
  port: number;
  /** Stops forwarding in both directions; the connections stay open. */
  block(): void;
  close(): Promise<void>;
}

export async function startTcpProxy(target: { host: string; port: number }): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  let blocked = false;
  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host);
    for (const [from, to] of [[client, upstream], [upstream, client]] as const) {
      sockets.add(from);
      from.on("data", (chunk) => blocked || to.write(chunk));
      from.on("error", () => to.destroy());
      from.on("close", () => {
        sockets.delete(from);
        to.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as net.AddressInfo).port,
    block: () => void (blocked = true),
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}
