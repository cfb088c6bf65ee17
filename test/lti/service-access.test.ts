/**
 * Service access over HTTP: the tool's client-credentials grant against the LMS
 * emulator's token endpoint, which verifies the signed assertion against the tool's key
 * set as the router publishes it (`<mount>/lti/jwks.json`), and its NRPS endpoint as the
 * service that takes the bearer token.
 */
import { generateKeyPairSync } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProblemList } from "../../src/core/configuration-error.js";
import type { Logger } from "../../src/core/logger.js";
import type { Registration } from "../../src/lti/lms/registrations.js";
import { resolveLtiSettings } from "../../src/lti/settings/settings.js";
import { createServiceAccess, LTI_SCOPES, ServiceAccessError } from "../../src/lti/lms/service-access.js";
import { toolKeysSchema, type ToolKeys } from "../../src/lti/lms/tool-keys.js";
import { fleetTokenShare } from "../../src/lti/lms/service-token-share.js";
import { fleetReady, redisFleet } from "../../src/fleet/redis-fleet.js";
import { startLtiBench, TOOL_KEY_PEM, type LtiBench } from "../support/lti.js";
import { dropPrefix, randomPrefix, REDIS_URL, redisOrSkip, SECRET } from "../support/redis.js";

const redisUp = await redisOrSkip("service access shared by a Redis fleet");

const NRPS = "application/vnd.ims.lti-nrps.v2.membershipcontainer+json";
let bench: LtiBench;
let registration: Registration;
let keys: ToolKeys;

const toolKeys = (pem: string, kid: string): ToolKeys => toolKeysSchema.parse([{ kid, privateKey: pem }]);

function recordingLogger(): { logger: Logger; lines: string[] } {
  const lines: string[] = [];
  const log = (obj: Record<string, unknown>, msg?: string) => void lines.push(`${JSON.stringify(obj)} ${msg ?? ""}`);
  return { logger: { debug: log, info: log, warn: log, error: log }, lines };
}

async function until<T>(what: () => Promise<T | undefined>, ms = 15_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (v !== undefined) return v;
    if (Date.now() > end) throw new Error("timed out");
    await new Promise((r) => setTimeout(r, 50));
  }
}

beforeAll(async () => {
  bench = await startLtiBench();
  const problems = new ProblemList();
  registration = resolveLtiSettings({ keys: [{ kid: "tool-1", privateKey: TOOL_KEY_PEM }], registrations: [bench.lms.registration()] }, problems)!.registrations.all()[0]!;
  problems.throwIfAny("test");
  keys = toolKeys(TOOL_KEY_PEM, "tool-1");
});
afterAll(async () => bench?.close());

describe("service access: client credentials with a signed assertion", () => {
  it("caches a token per (registration, scopes) and reuses it, whatever the scopes' order", async () => {
    bench.lms.setTokenLifetime(3600);
    const access = createServiceAccess({ keys, logger: recordingLogger().logger, allowLoopbackHttp: true });
    const before = bench.lms.tokenCounts.issued;
    const a = await access.token(registration, [LTI_SCOPES.memberships, LTI_SCOPES.score]);
    const b = await access.token(registration, [LTI_SCOPES.score, LTI_SCOPES.memberships]);
    expect(b).toBe(a);
    expect(bench.lms.tokenCounts.issued).toBe(before + 1);
    const other = await access.token(registration, [LTI_SCOPES.memberships]);
    expect(other).not.toBe(a);
    expect(bench.lms.tokenCounts.issued).toBe(before + 2);
  });

  it("asks for a new token once the cached one nears its expiry", async () => {
    bench.lms.setTokenLifetime(2); // usable for half its life: 1 s
    const access = createServiceAccess({ keys, logger: recordingLogger().logger, allowLoopbackHttp: true });
    const before = bench.lms.tokenCounts.issued;
    const first = await access.token(registration, [LTI_SCOPES.memberships]);
    expect(await access.token(registration, [LTI_SCOPES.memberships])).toBe(first);
    const second = await until(async () => {
      const t = await access.token(registration, [LTI_SCOPES.memberships]);
      return t !== first ? t : undefined;
    });
    expect(second).not.toBe(first);
    expect(bench.lms.tokenCounts.issued).toBe(before + 2);
    bench.lms.setTokenLifetime(3600);
  });

  it("sends one token request for many concurrent callers", async () => {
    const access = createServiceAccess({ keys, logger: recordingLogger().logger, allowLoopbackHttp: true });
    const before = bench.lms.tokenCounts.requests;
    const tokens = await Promise.all(Array.from({ length: 25 }, () => access.token(registration, [LTI_SCOPES.memberships])));
    expect(new Set(tokens).size).toBe(1);
    expect(bench.lms.tokenCounts.requests).toBe(before + 1);
  });

  it("a 401 from the token endpoint → ServiceAccessError naming the fix, no secret in message or log", async () => {
    const strangerPem = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
    const { logger, lines } = recordingLogger();
    const access = createServiceAccess({ keys: toolKeys(strangerPem, "not-published"), logger, allowLoopbackHttp: true });
    const refusedBefore = bench.lms.tokenCounts.refused;
    const error = await access.token(registration, [LTI_SCOPES.memberships]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ServiceAccessError);
    expect((error as ServiceAccessError).kind).toBe("token_refused");
    expect((error as ServiceAccessError).status).toBe(401);
    expect((error as Error).message).toMatch(/key set URL \(<mount>\/lti\/jwks\.json\)/);
    expect(bench.lms.tokenCounts.refused).toBe(refusedBefore + 1);
    const warned = lines.filter((l) => l.includes("refused"));
    expect(warned.length).toBe(1);
    for (const text of [...lines, (error as Error).message, JSON.stringify(error)]) {
      expect(text).not.toMatch(/eyJ[\w-]+\./); // no JWT (the assertion)
      expect(text).not.toContain("PRIVATE KEY");
      expect(text).not.toContain(strangerPem.split("\n")[1]!);
    }
  });

  it("a registration without a tokenUrl → no_token_url, nothing sent", async () => {
    const access = createServiceAccess({ keys, logger: recordingLogger().logger, allowLoopbackHttp: true });
    const before = bench.lms.tokenCounts.requests;
    const error = await access.token({ ...registration, tokenUrl: undefined }, [LTI_SCOPES.score]).catch((e: unknown) => e);
    expect((error as ServiceAccessError).kind).toBe("no_token_url");
    expect((error as Error).message).toMatch(/tokenUrl/);
    expect(bench.lms.tokenCounts.requests).toBe(before);
  });

  it("an LMS whose token endpoint does not answer → ServiceAccessError unreachable, naming the token URL", async () => {
    const { logger, lines } = recordingLogger();
    const access = createServiceAccess({ keys, logger, timeoutMs: 2_000, allowLoopbackHttp: true });
    const closed = "http://127.0.0.1:9/token"; // the discard port: nothing listens
    const error = await access.token({ ...registration, tokenUrl: closed }, [LTI_SCOPES.score]).catch((e: unknown) => e);
    expect((error as ServiceAccessError).kind).toBe("unreachable");
    expect((error as Error).message).toContain(closed);
    expect(lines.some((l) => l.includes("unreachable"))).toBe(true);
  });

  it("a 401 from a service drops the cached token and retries once with a fresh one", async () => {
    const { logger, lines } = recordingLogger();
    const access = createServiceAccess({ keys, logger, allowLoopbackHttp: true });
    const url = `${bench.lms.url}/api/lti/courses/course-1/names_and_roles`;
    const first = await access.call(registration, [LTI_SCOPES.memberships], { url, accept: NRPS });
    expect(first.status).toBe(200);
    const issued = bench.lms.tokenCounts.issued;
    const refused = bench.lms.tokenCounts.bearerRefused;
    bench.lms.revokeTokens();
    const again = await access.call(registration, [LTI_SCOPES.memberships], { url, accept: NRPS });
    expect(again.status).toBe(200);
    expect((again.body as { members: unknown[] }).members.length).toBe(50);
    expect(bench.lms.tokenCounts.issued).toBe(issued + 1);
    expect(bench.lms.tokenCounts.bearerRefused).toBe(refused + 1);
    const token = await access.token(registration, [LTI_SCOPES.memberships]);
    for (const line of lines) expect(line).not.toContain(token);
  });

  it("a service refusing a fresh token too → ServiceAccessError refused, after one retry only", async () => {
    const access = createServiceAccess({ keys, logger: recordingLogger().logger, allowLoopbackHttp: true });
    const url = `${bench.lms.url}/api/lti/courses/course-1/names_and_roles`;
    const refused = bench.lms.tokenCounts.bearerRefused;
    // A token without the memberships scope: the service answers 403 each time.
    const error = await access.call(registration, [LTI_SCOPES.score], { url, accept: NRPS }).catch((e: unknown) => e);
    expect((error as ServiceAccessError).kind).toBe("refused");
    expect((error as ServiceAccessError).status).toBe(403);
    expect(bench.lms.tokenCounts.bearerRefused).toBe(refused + 1);
  });
});

describe.runIf(redisUp)("service access in a Redis fleet", () => {
  it("two instances asking at once send one token request, and share its token", async () => {
    const prefix = randomPrefix("roster-token");
    const fleets = [0, 1].map(() => redisFleet({ url: REDIS_URL, secret: SECRET, prefix, commandTimeoutMs: 3_000 }));
    try {
      for (const f of fleets) expect(await fleetReady(f)).toBe(true);
      const instances = fleets.map((fleet) => createServiceAccess({ keys, logger: recordingLogger().logger, shared: fleetTokenShare(fleet, 15_000), allowLoopbackHttp: true }));
      const before = bench.lms.tokenCounts.requests;
      const tokens = await Promise.all(instances.flatMap((access) => Array.from({ length: 5 }, () => access.token(registration, [LTI_SCOPES.lineItem]))));
      expect(new Set(tokens).size).toBe(1);
      expect(bench.lms.tokenCounts.requests).toBe(before + 1);
    } finally {
      await Promise.all(fleets.map((f) => f.close()));
      await dropPrefix(prefix);
    }
  });
});
