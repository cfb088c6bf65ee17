/**
 * A GET on a raw socket (`net.connect`), for what `fetch` hides: a client that does not
 * read (the socket paused, its kernel buffers left to fill), one that reads at a set pace,
 * and the body's HTTP/1.1 chunks as the server wrote them (one per `res.write`).
 */
import { connect, type Socket } from "node:net";

export interface RawResponse {
  status: number;
  /** The header block, lower-cased names, as sent. */
  head: string;
  /** The chunked body's data chunks, in order. */
  chunks: Buffer[];
  /** Whether the terminating zero-size chunk came: false when the server stopped mid-answer. */
  complete: boolean;
  /** The data chunks joined, as text. */
  body: string;
}

export interface RawRequestOptions {
  /** Start paused: read nothing until `socket.resume()`. */
  paused?: boolean;
  /** Read the first data that comes (the answer has started), then nothing until `socket.resume()`. */
  stopAfterFirst?: boolean;
  /** Read at most this many bytes a second (paused between reads). Default: as fast as it comes. */
  bytesPerSecond?: number;
}

/** Sends `GET path` with `headers` (and `Connection: close`); the answer once the server closes. */
export function rawGet(url: string, path: string, headers: Record<string, string>, options: RawRequestOptions = {}): {
  socket: Socket; started: Promise<void>; response: Promise<RawResponse>;
  /** Bytes this client has read so far (head and chunk framing included). */
  received: () => number;
} {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  if (options.paused) socket.pause();
  const lines = Object.entries({ Host: hostname, Connection: "close", ...headers }).map(([k, v]) => `${k}: ${v}\r\n`).join("");
  socket.write(`GET ${path} HTTP/1.1\r\n${lines}\r\n`);
  const received: Buffer[] = [];
  let receivedBytes = 0;
  const { bytesPerSecond } = options;
  let started!: () => void;
  const answerStarted = new Promise<void>((resolve) => (started = resolve));
  socket.on("data", (data: Buffer) => {
    received.push(data);
    receivedBytes += data.length;
    if (received.length === 1) {
      started();
      if (options.stopAfterFirst) socket.pause();
    }
    if (bytesPerSecond === undefined) return;
    socket.pause();
    setTimeout(() => socket.resume(), (data.length / bytesPerSecond) * 1000);
  });
  const response = new Promise<RawResponse>((resolve) => {
    socket.on("error", () => undefined); // a reset ends the answer as a close does
    socket.on("close", () => resolve(parse(Buffer.concat(received))));
  });
  return { socket, started: answerStarted, response, received: () => receivedBytes };
}

function parse(raw: Buffer): RawResponse {
  const end = raw.indexOf("\r\n\r\n");
  // Closed before a whole header block: no answer (status 0).
  if (end < 0) return { status: 0, head: "", chunks: [], complete: false, body: "" };
  const head = raw.subarray(0, end).toString("latin1").toLowerCase();
  const status = Number(/^http\/1\.1 (\d{3})/.exec(head)?.[1]);
  const chunks: Buffer[] = [];
  let at = end + 4;
  let complete = false;
  if (!head.includes("transfer-encoding: chunked")) chunks.push(raw.subarray(at));
  else {
    for (;;) {
      const lineEnd = raw.indexOf("\r\n", at);
      if (lineEnd < 0) break;
      const size = parseInt(raw.subarray(at, lineEnd).toString("latin1"), 16);
      if (size === 0) {
        complete = true;
        break;
      }
      if (lineEnd + 2 + size > raw.length) break; // cut mid-chunk
      chunks.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  return { status, head, chunks, complete, body: Buffer.concat(chunks).toString("utf8") };
}
