/** A TCP proxy on 127.0.0.1 port 0 for the tests that cut an instance off from Redis (or any server) and let it back. */
import { createServer, connect as connectTcp, type Server, type Socket } from "node:net";

export interface TcpProxy {
  port: number;
  /** False: new connections are refused (closed at once). */
  open: boolean;
  /** Closes every connection through it now. */
  drop(): void;
  close(): Promise<void>;
}

/** A proxy to 127.0.0.1:`port`; closed (`open = false`), it drops every new connection. */
export async function tcpProxy(port: number): Promise<TcpProxy> {
  const sockets = new Set<Socket>();
  const proxy: TcpProxy = { port: 0, open: true, drop: () => { for (const s of sockets) s.destroy(); }, close: async () => {} };
  const server: Server = createServer((client) => {
    if (!proxy.open) return void client.destroy();
    const upstream = connectTcp(port, "127.0.0.1");
    sockets.add(client).add(upstream);
    const drop = (): void => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream); };
    client.on("error", drop).on("close", drop);
    upstream.on("error", drop).on("close", drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  proxy.port = (server.address() as { port: number }).port;
  proxy.close = () => { for (const s of sockets) s.destroy(); return new Promise<void>((resolve) => server.close(() => resolve())); };
  return proxy;
}
