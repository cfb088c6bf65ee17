/** Starts any request listener on 127.0.0.1, port 0, and gives back its URL and a closer. */
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express, { type RequestHandler } from "express";

export interface Listening {
  url: string;
  server: Server;
  close(): Promise<void>;
}

export async function listen(handler: RequestListener): Promise<Listening> {
  const server = createServer(handler);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/**
 * A host app whose "session" is the `x-user` header: `userOf(name)` makes `req.user` of
 * it (no header, or `undefined`: signed out), with `router` mounted at `/oral`; listening
 * as `listen` does.
 */
export async function listenWithHeaderUser(router: RequestHandler, userOf: (name: string) => object | undefined): Promise<Listening> {
  const host = express();
  host.use((req, _res, next) => {
    const name = req.get("x-user");
    const user = name === undefined ? undefined : userOf(name);
    if (user) (req as unknown as { user: object }).user = user;
    next();
  });
  host.use("/oral", router);
  return listen(host);
}
