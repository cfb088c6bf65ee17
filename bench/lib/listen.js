/**
 * A throwaway HTTP server for an Express app on 127.0.0.1, port 0, closed with its
 * keep-alive sockets (the baselines the benchmarks compare against).
 */
import http from "node:http";

export async function listenLocal(app) {
  const server = http.createServer(app);
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    close: () => {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(resolve));
    },
  };
}
