/**
 * A forging LMS for the launch checks: its own RS256 key set on 127.0.0.1 (`/jwks`), a
 * registration to give the tool next to the LMS emulator's, and `launch()`, which walks
 * the tool's login (read for its state, nonce and cookie) and posts an id_token built
 * from a sound LtiResourceLinkRequest with any claim or header changed: one rule broken
 * at a time, or a real LMS's shape (Moodle's 60 s token, Canvas's `deployment_id`, …).
 */
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { exportJWK, generateKeyPair, SignJWT, UnsecuredJWT, type JWK } from "jose";
import request from "supertest";
import type { LtiRegistration } from "../../src/lti/options/options.js";
import { startLtiBench, type LtiBench } from "./lti.js";

export const ROLE = {
  learner: "http://purl.imsglobal.org/vocab/lis/v2/membership#Learner",
  instructor: "http://purl.imsglobal.org/vocab/lis/v2/membership#Instructor",
  teachingAssistant: "http://purl.imsglobal.org/vocab/lis/v2/membership/Instructor#TeachingAssistant",
  institutionInstructor: "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Instructor",
  institutionStudent: "http://purl.imsglobal.org/vocab/lis/v2/institution/person#Student",
  systemAdministrator: "http://purl.imsglobal.org/vocab/lis/v2/system/person#Administrator",
};
const L = "https://purl.imsglobal.org/spec/lti/claim/";
export const C = {
  messageType: `${L}message_type`, version: `${L}version`, deploymentId: `${L}deployment_id`, targetLinkUri: `${L}target_link_uri`,
  resourceLink: `${L}resource_link`, roles: `${L}roles`, custom: `${L}custom`, context: `${L}context`, toolPlatform: `${L}tool_platform`,
} as const;

type Key = { kid: string; privateKey: Awaited<ReturnType<typeof generateKeyPair>>["privateKey"]; publicJwk: JWK };
async function newKey(kid: string): Promise<Key> {
  const { privateKey, publicKey } = await generateKeyPair("RS256", { extractable: true });
  return { kid, privateKey, publicJwk: { ...(await exportJWK(publicKey)), kid, alg: "RS256", use: "sig" } };
}

export interface ForgeLaunch {
  /** Claims changed in the sound token; `undefined` removes one. `(now, sound) => …` for times. */
  claims?: Record<string, unknown> | ((now: number) => Record<string, unknown>);
  /** `"none"`, `"HS256"`, `"stranger"` (signed by a key outside the set, under the set's kid), `"unknown_kid"`. */
  signing?: "none" | "HS256" | "stranger" | "unknown_kid";
  /** Extra login parameters (`lti_deployment_id`, Canvas's `deployment_id`); `undefined` removes one. */
  login?: Record<string, string | undefined>;
  /** The state cookie's value instead of the one the login set (`null`: no cookie). */
  cookie?: string | null;
  /** The id_token posted instead of the minted one. */
  idToken?: (minted: string) => string;
  /** Runs after the login, before the id_token is posted (something changes between the two). */
  beforePost?: () => Promise<void>;
}

export interface Forge {
  readonly issuer: string;
  readonly clientId: string;
  readonly deploymentId: string;
  registration(deployments?: string[]): LtiRegistration;
  launch(bench: LtiBench, examId: string, f?: ForgeLaunch): Promise<request.Response>;
  /**
   * Course binding: a sound instructor launch of the exam's link in the forge's course
   * (under `deployment`), which links the exam's class to that course, so learners there
   * may launch it. Throws unless the instructor page says the link is ready.
   */
  linkCourse(bench: LtiBench, examId: string, deployment?: string): Promise<void>;
  close(): Promise<void>;
}

/**
 * The forge's key and the outsider's, made once per worker and shared by every forge: each
 * forge has its own key set URL, and an RSA key costs 0.1–0.3 s of CPU.
 */
let forgeKeys: Promise<[key: Key, stranger: Key]> | undefined;

export async function startForge(): Promise<Forge> {
  const [key, stranger] = await (forgeKeys ??= Promise.all([newKey("forge-1"), newKey("forge-1")]));
  const app = express();
  app.get("/jwks", (_req, res) => void res.json({ keys: [key.publicJwk] }));
  const server: Server = await new Promise((resolve) => { const s = app.listen(0, "127.0.0.1", () => resolve(s)); });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const issuer = "https://forge.lms.example";
  const clientId = "forge-client";
  const deploymentId = "forge-deployment-1";

  async function launch(bench: LtiBench, examId: string, f: ForgeLaunch = {}): Promise<request.Response> {
    const tool = `${bench.stack.app.url}/oral`;
    const params: Record<string, string | undefined> = { iss: issuer, client_id: clientId, login_hint: "forge-user-1", target_link_uri: `${tool}/lti/launch`, lti_deployment_id: deploymentId, ...f.login };
    const query = new URLSearchParams(Object.entries(params).filter((e): e is [string, string] => e[1] !== undefined));
    const login = await request(bench.stack.app.url).get(`/oral/lti/login?${query}`);
    if (login.status !== 302) throw new Error(`login answered ${login.status}: ${login.text.slice(0, 300)}`);
    const auth = new URL(login.headers.location!);
    const state = auth.searchParams.get("state")!;
    const nonce = auth.searchParams.get("nonce")!;
    const set = (login.headers["set-cookie"] as unknown as string[])[0]!.split(";")[0]!;
    const now = Math.floor(Date.now() / 1000);
    const claims: Record<string, unknown> = {
      iss: issuer, aud: clientId, sub: "forge-user-1", nonce, iat: now, exp: now + 300,
      given_name: "Fay", family_name: "Forge", name: "Fay Forge", email: "fay@forge.example",
      [C.messageType]: "LtiResourceLinkRequest", [C.version]: "1.3.0", [C.deploymentId]: deploymentId,
      [C.targetLinkUri]: `${tool}/lti/launch`, [C.resourceLink]: { id: "forge-link-1" }, [C.roles]: [ROLE.learner],
      [C.custom]: { exam_id: examId }, [C.context]: { id: "forge-course" },
    };
    for (const [k, v] of Object.entries(typeof f.claims === "function" ? f.claims(now) : f.claims ?? {})) {
      if (v === undefined) delete claims[k];
      else claims[k] = v;
    }
    let minted: string;
    if (f.signing === "none") minted = new UnsecuredJWT(claims).encode();
    else if (f.signing === "HS256") minted = await new SignJWT(claims).setProtectedHeader({ alg: "HS256", kid: key.kid }).sign(new TextEncoder().encode(JSON.stringify(key.publicJwk)));
    else {
      const signer = f.signing === "stranger" || f.signing === "unknown_kid" ? stranger : key;
      minted = await new SignJWT(claims).setProtectedHeader({ alg: "RS256", kid: f.signing === "unknown_kid" ? "forge-unknown" : key.kid, typ: "JWT" }).sign(signer.privateKey);
    }
    await f.beforePost?.();
    const post = request(bench.stack.app.url).post("/oral/lti/launch").type("form").send({ id_token: f.idToken ? f.idToken(minted) : minted, state });
    const cookie = f.cookie === undefined ? set : f.cookie === null ? undefined : `${set.split("=")[0]}=${f.cookie}`;
    return cookie ? post.set("Cookie", cookie) : post;
  }

  async function linkCourse(bench: LtiBench, examId: string, deployment = deploymentId): Promise<void> {
    const r = await launch(bench, examId, { claims: { sub: "forge-instructor", [C.roles]: [ROLE.instructor], [C.deploymentId]: deployment }, login: { lti_deployment_id: deployment } });
    if (r.status !== 200 || !/id="status">Ready/.test(r.text)) throw new Error(`the forged instructor launch did not link the course: ${r.status} ${r.text.slice(0, 400)}`);
  }

  return {
    issuer, clientId, deploymentId, linkCourse,
    registration: (deployments = [deploymentId]) => ({ issuer, clientId, authorizationUrl: `${url}/auth`, jwksUrl: `${url}/jwks`, deployments }),
    launch,
    close: () => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** Runs `act` and answers the check names the tool refused with meanwhile (log lines `lti_refused`). */
export async function refusedDuring<T>(bench: LtiBench, act: () => Promise<T>): Promise<{ result: T; checks: string[] }> {
  const from = bench.stack.logger.lines.length;
  const result = await act();
  const checks = bench.stack.logger.lines.slice(from).filter((l) => l.obj.event === "lti_refused").map((l) => String(l.obj.check));
  return { result, checks };
}

/**
 * A forge registered beside the bench's LMS with two deployments: the bench's exam is
 * linked to the forge's course under the first, `secondExam` under "forge-deployment-2"
 * only. Close both when done.
 */
export async function startTwoDeploymentForge(): Promise<{ forge: Forge; bench: LtiBench; secondExam: string }> {
  const forge = await startForge();
  const bench = await startLtiBench((lms) => ({ registrations: [lms.registration(), forge.registration([forge.deploymentId, "forge-deployment-2"])] }));
  await forge.linkCourse(bench, bench.examId);
  const { examId: secondExam } = await bench.stack.seedExam();
  await forge.linkCourse(bench, secondExam, "forge-deployment-2");
  return { forge, bench, secondExam };
}
