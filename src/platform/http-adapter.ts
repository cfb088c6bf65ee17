/**
 * An axios adapter over plain `node:http` / `node:https` with keep-alive agents.
 *
 * Why not axios' own `http` adapter: on a warm keep-alive socket it costs measurably more
 * per request (`npm run bench -- --breakdown` shows by how much on your machine): it routes through follow-redirects' wrapper, builds transform streams for progress
 * events and a decompression pipeline for every response. We need none of that. Axios
 * stays the client (config merging, interceptors, the error types integrators know);
 * only the last step, one request on one socket, is ours. The adapter contract is
 * axios' `adapter` option: a function from the request config to a promise of the
 * response (status, headers, raw data; `transformResponse` runs after it).
 *
 * What it does, and what it deliberately does not:
 * - Redirects are never followed: a 3xx is returned as it is.
 * - `config.timeout` (if set) is a wall-clock bound on the whole exchange, not an idle
 *   timer, so a slowly dribbling body cannot outlive it (code `ECONNABORTED`).
 * - `config.signal` aborts the request and its socket (a `CanceledError`).
 * - `maxContentLength` bounds the decoded body; past it the socket is destroyed and the
 *   promise rejects with code `ERR_BAD_RESPONSE` and a message naming maxContentLength,
 *   as axios' own adapter does.
 * - gzip, deflate and br bodies are decoded when `decompress` is not false.
 * - The body arrives whole: `responseType` "arraybuffer" gives a Buffer, anything else
 *   text (streams are not supported).
 * Errors are `AxiosError`s carrying the config, as the contract requires; the transport
 * keeps only their `code` (the config holds the Authorization header).
 */
import http from "node:http";
import https from "node:https";
import zlib from "node:zlib";
import type { Readable } from "node:stream";
import {
  AxiosError, AxiosHeaders, CanceledError, type AxiosAdapter, type AxiosResponse, type InternalAxiosRequestConfig,
} from "axios";
import { isPlainPath } from "./plain-path.js";

/** The status codes and methods whose responses have no body to decode. */
const NO_BODY_STATUS = new Set([204, 304]);

/**
 * What an adapter can be built with instead of reading it from every request's config:
 * each key axios carries in a config costs time in its per-request merge and flattening
 * (a config of only method, url, data, headers, signal and timeout is cheaper to send).
 * A value in the request's config still wins.
 */
export interface AdapterDefaults {
  httpAgent?: http.Agent;
  httpsAgent?: https.Agent;
  /** Largest decoded body, bytes; default unbounded. */
  maxContentLength?: number;
}

/** An adapter with its agents and body limit bound, so requests need not carry them. */
export function createNodeHttpAdapter(defaults: AdapterDefaults = {}): AxiosAdapter {
  return (config) => adapt(config, defaults);
}

const adapt = (config: InternalAxiosRequestConfig, defaults: AdapterDefaults) => new Promise<AxiosResponse>((resolve, reject) => {
  if (config.responseType === "stream") {
    reject(new AxiosError("responseType stream is not supported by this adapter", AxiosError.ERR_NOT_SUPPORT, config));
    return;
  }
  const target = targetOf(config.url ?? "");
  if (typeof target === "string") {
    reject(new AxiosError(target, target.startsWith("Invalid URL") ? AxiosError.ERR_INVALID_URL : AxiosError.ERR_BAD_REQUEST, config));
    return;
  }
  const { origin, path, auth } = target;
  const secure = origin.secure;

  const body = bodyOf(config.data);
  // toJSON builds a fresh object on every call: ours to add to.
  const headers = config.headers.toJSON(true) as Record<string, string>;
  if (body !== undefined) headers["Content-Length"] = String(typeof body === "string" ? Buffer.byteLength(body) : body.length);
  const decompress = config.decompress !== false;
  if (decompress && !hasHeader(headers, "accept-encoding")) headers["Accept-Encoding"] = "gzip, deflate, br";
  const maxContentLength = config.maxContentLength ?? defaults.maxContentLength;
  const maxBytes = typeof maxContentLength === "number" && maxContentLength > -1 ? maxContentLength : Infinity;

  let settled = false;
  let timer: NodeJS.Timeout | undefined;
  const signal = config.signal as AbortSignal | undefined;
  const finish = (outcome: () => void) => {
    if (settled) return;
    settled = true;
    if (timer) clearTimeout(timer);
    signal?.removeEventListener("abort", onAbort);
    outcome();
  };
  const fail = (error: AxiosError) => finish(() => {
    request.destroy();
    reject(error);
  });
  const onAbort = () => fail(new CanceledError(undefined, config, request));

  const request = origin.transport.request({
    protocol: origin.protocol,
    hostname: origin.hostname,
    port: origin.port,
    path,
    auth,
    method: (config.method ?? "get").toUpperCase(),
    headers,
    agent: secure ? (config.httpsAgent ?? defaults.httpsAgent) : (config.httpAgent ?? defaults.httpAgent),
  }, (response) => {
    const decoded = decoderFor(response, decompress, config.method);
    if (!decoded && Number(response.headers["content-length"]) > maxBytes) {
      fail(tooLarge(maxBytes, config, request));
      return;
    }
    const source: Readable = decoded?.stream ?? response;
    if (decoded) {
      response.headers = { ...response.headers };
      delete response.headers["content-encoding"];
      delete response.headers["content-length"];
    }
    const chunks: Buffer[] = [];
    let size = 0;
    source.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) {
        decoded?.stream.destroy();
        fail(tooLarge(maxBytes, config, request));
        return;
      }
      chunks.push(chunk);
    });
    source.on("error", (error: NodeJS.ErrnoException) => fail(errorFrom(error, config, request)));
    // A socket closed before the body ended: Node emits `aborted` and then `close` on the
    // response, with or without an `error` depending on the version. `complete` tells.
    response.on("close", () => {
      if (!response.complete) fail(new AxiosError("socket hang up: the response ended early", "ECONNRESET", config, request));
    });
    source.on("end", () => finish(() => {
      const raw = chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
      resolve({
        data: config.responseType === "arraybuffer" ? raw : raw.toString("utf8"),
        status: response.statusCode ?? 0,
        statusText: response.statusMessage ?? "",
        // Node's header names are already lower-case and unique: copied into an
        // AxiosHeaders as they are, axios takes them without normalising each one again.
        headers: Object.assign(new AxiosHeaders(), response.headers),
        config,
        request,
      });
    }));
  });
  request.on("error", (error: NodeJS.ErrnoException) => fail(errorFrom(error, config, request)));

  if (signal) {
    if (signal.aborted) {
      onAbort();
      return;
    }
    signal.addEventListener("abort", onAbort, { once: true });
  }
  if (config.timeout && config.timeout > 0) {
    const ms = config.timeout;
    timer = setTimeout(() => fail(new AxiosError(`timeout of ${ms}ms exceeded`, AxiosError.ECONNABORTED, config, request)), ms);
  }
  request.end(body);
});

/**
 * Text stays text: Node then writes the head and the body in one write() (a Buffer body
 * goes out as a second chunk through writev, which costs a measurable syscall per call).
 */
function bodyOf(data: unknown): Buffer | string | undefined {
  if (data === undefined || data === null) return undefined;
  if (Buffer.isBuffer(data) || typeof data === "string") return data;
  if (data instanceof ArrayBuffer) return Buffer.from(data);
  if (ArrayBuffer.isView(data)) return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  // transformRequest has already run; anything else was not meant for this adapter.
  return Buffer.from(JSON.stringify(data), "utf8");
}

function hasHeader(headers: Record<string, string>, lowerName: string): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === lowerName);
}

/** A decoding stream fed by the response, or undefined when the body is sent as is. */
function decoderFor(response: http.IncomingMessage, decompress: boolean, method: string | undefined): { stream: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress } | undefined {
  const header = response.headers["content-encoding"];
  // Most answers are not encoded: nothing else to look at.
  if (header === undefined || !decompress || method?.toLowerCase() === "head" || NO_BODY_STATUS.has(response.statusCode ?? 0)) return undefined;
  const encoding = String(header).trim().toLowerCase();
  // Lenient flushing, as browsers and axios do: a body cut at a block boundary still decodes.
  const flush = { flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH };
  let stream: zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress;
  if (encoding === "gzip" || encoding === "x-gzip") stream = zlib.createGunzip(flush);
  else if (encoding === "deflate") stream = zlib.createUnzip(flush);
  else if (encoding === "br") {
    stream = zlib.createBrotliDecompress({
      flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH,
    });
  } else return undefined;
  response.pipe(stream);
  return { stream };
}

function tooLarge(maxBytes: number, config: InternalAxiosRequestConfig, request: http.ClientRequest): AxiosError {
  return new AxiosError(`maxContentLength size of ${maxBytes} exceeded`, AxiosError.ERR_BAD_RESPONSE, config, request);
}

/** Socket errors keep their system code (ECONNRESET, ECONNREFUSED…), zlib errors theirs (Z_DATA_ERROR). */
function errorFrom(error: NodeJS.ErrnoException, config: InternalAxiosRequestConfig, request: http.ClientRequest): AxiosError {
  return new AxiosError(error.message, error.code, config, request);
}

/** What a request needs of its URL's origin, parsed once per origin. */
interface Origin {
  secure: boolean;
  transport: typeof http | typeof https;
  protocol: string;
  hostname: string;
  port: string;
}

/**
 * Origins seen, by their text (`https://host:port`). A client talks to one or two, so
 * this stays tiny; the bound only keeps a misuse (a new host per call) from growing it.
 */
const origins = new Map<string, Origin>();
const MAX_ORIGINS = 64;

/**
 * The origin and path of a request URL; a string is the reason it cannot be sent.
 * Why not `new URL` every time: the client sends to one base URL, so parsing the same
 * origin on every request is wasted work; the path is taken as it is when `new URL`
 * would not change it (a plain ASCII path, see `isPlainPath`), and parsed otherwise.
 */
function targetOf(text: string): { origin: Origin; path: string; auth?: string } | string {
  const schemeEnd = text.indexOf("://");
  const pathStart = schemeEnd === -1 ? -1 : text.indexOf("/", schemeEnd + 3);
  if (pathStart !== -1) {
    const origin = origins.get(text.slice(0, pathStart));
    const path = text.slice(pathStart);
    if (origin && isPlainPath(path)) return { origin, path };
  }
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return `Invalid URL: ${text || "(none)"}`;
  }
  const secure = url.protocol === "https:";
  if (!secure && url.protocol !== "http:") return `Unsupported protocol ${url.protocol}`;
  // Credentials in the URL are not part of an origin we can reuse: parse such URLs every time.
  const reusable = url.username === "" && url.password === "";
  let origin = reusable ? origins.get(url.origin) : undefined;
  if (!origin) {
    origin = {
      secure,
      transport: secure ? https : http,
      protocol: url.protocol,
      // node:http wants an IPv6 literal without its brackets.
      hostname: url.hostname.startsWith("[") ? url.hostname.slice(1, -1) : url.hostname,
      port: url.port,
    };
    if (reusable && origins.size < MAX_ORIGINS) origins.set(url.origin, origin);
  }
  const path = `${url.pathname}${url.search}`;
  // As node:http does for a URL object: credentials become Basic auth.
  if (!reusable) return { origin, path, auth: `${decodeURIComponent(url.username)}:${decodeURIComponent(url.password)}` };
  return { origin, path };
}
