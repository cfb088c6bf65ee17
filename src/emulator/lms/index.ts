/**
 * `createLmsEmulator()`: a local LTI 1.3 platform for developing and testing the tool
 * side, over real HTTP. It has its own RS256 key set (`/jwks`, with `rotateKey()`), an
 * OIDC authorization endpoint (`/auth`, GET or POST) that checks every parameter of the
 * authentication request and form-posts a signed `id_token` and `state` to the tool's
 * registered redirect URI, a course with an instructor and students, a course page that
 * frames the tool as Canvas does (with Platform Storage answered by postMessage from a
 * sibling frame), deep-linking requests with a return endpoint that verifies the tool's
 * response against its key set (deep-linking.ts), LTI Dynamic Registration (an OpenID
 * configuration and a registration endpoint, registration.ts), and fault switches minting
 * each bad token of the checks a tool must make. Its AGS claim lists the granted scopes only.
 */
import express from "express";
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { randomUUID } from "node:crypto";
import { decodeJwt } from "jose";
import { autoPostPage, courseHomePage, coursePage, forwardingPage } from "./course-page.js";
import { certificationLaunch } from "./certification.js";
import { deepLinkingSide } from "./deep-linking.js";
import { LMS_FAULTS, type LmsFault } from "./faults.js";
import { DEFAULT_USERS, newKey } from "./lms-defaults.js";
import { mintLaunch, type LmsKey, type LmsUser, type ResourceLink } from "./mint.js";
import { noticeSide } from "./notices.js";
import { membershipSide } from "./memberships.js";
import { lmsShape } from "./presets.js";
import { registrationSide } from "./registration.js";
import { GRANTABLE_SCOPES, tokenSide } from "./token.js";
import { gradebookSide } from "./gradebook.js";

export { LMS_FAULTS, type LmsFault } from "./faults.js";
export type { LmsUser, ResourceLink } from "./mint.js";
export type { DeepLinkingRequestOptions, DeepLinkReturn } from "./deep-linking.js";
export type { RegistrationFault, ToolRegistration } from "./registration.js";
export { LMS_PRESETS, type LmsPreset } from "./presets.js";
export type { TokenCounts } from "./token.js";
export type { GradebookCounts, LmsLineItem, LmsScore } from "./gradebook.js";
export type { LmsResult } from "./gradebook-rules.js";
export type { MembershipCounts, RosterMember } from "./memberships.js";
export type { CopyCourseInput, NoticeSent } from "./notices.js";
export type { LmsEmulator, LmsEmulatorOptions } from "./emulator-types.js";
import type { LmsEmulator, LmsEmulatorOptions } from "./emulator-types.js";

const CONTEXT = "https://purl.imsglobal.org/spec/lti/claim/context";
const AGS_SCOPES = ["lineitem", "lineitem.readonly", "result.readonly", "score"].map((s) => `https://purl.imsglobal.org/spec/lti-ags/scope/${s}`);

export async function createLmsEmulator(options: LmsEmulatorOptions = {}): Promise<LmsEmulator> {
  const host = options.host ?? "localhost";
  const shape = lmsShape(options.preset ?? "emulator");
  const USERS = options.users ?? DEFAULT_USERS;
  let clientId = options.clientId ?? shape.clientId;
  const deploymentId = options.deploymentId ?? shape.deploymentId;
  const issuer = () => shape.issuer ?? base;
  let keys: LmsKey[] = [await newKey(options.signingKey)];
  let strangerKey: Promise<LmsKey> | undefined;
  const stranger = () => (strangerKey ??= newKey());
  let fault: LmsFault | undefined;
  let extraClaims: Record<string, unknown> = {};
  let jwksFetches = 0;
  let tool: { root: string; login: string; redirect: string; origin: string } | undefined;
  const links = new Map<string, ResourceLink>();
  let base = "";
  const linking = deepLinkingSide({
    base: () => base, issuer, get clientId() { return clientId; }, deploymentId, toolRoot: () => tool?.root,
    addLink: (link) => addResourceLink(link),
    acceptsLineItems: shape.linkLineItems !== false,
    coursePage: (userId, linkId) => `${base}/course/${encodeURIComponent(linkId)}?user=${encodeURIComponent(userId)}`,
  });
  const addResourceLink = (link: Omit<ResourceLink, "id"> & { id?: string }): ResourceLink => {
    const full: ResourceLink = { ...link, id: link.id ?? `rl-${randomUUID().slice(0, 8)}` };
    links.set(full.id, full);
    if (full.lineItem) grades.addLinkLineItem(full.id, full.lineItem);
    return full;
  };
  /** None granted: no claim; a deep-linking request has no line item. */
  const agsClaim = (linkId: string): Record<string, unknown> | undefined => {
    const lineItem = grades.lineItemOf(linkId);
    const scope = AGS_SCOPES.filter((s) => granted.has(s));
    return scope.length === 0 ? undefined : { scope, lineitems: grades.lineItemsUrl(), ...(lineItem ? { lineitem: lineItem } : {}) };
  };
  const placement = (id: string): ResourceLink | { deepLinking: Record<string, unknown> } | undefined => {
    const settings = linking.settingsOf(id);
    return settings ? { deepLinking: settings } : links.get(id) ?? reviews.get(id);
  };

  // The tool's registration's scopes: every one for a manual registration unless told (registerTool), what it asked for by Dynamic Registration.
  let granted: ReadonlySet<string> = GRANTABLE_SCOPES;
  const tokens = tokenSide({ tokenUrl: () => `${base}/token`, clientId: () => clientId, toolRoot: () => tool?.root, granted: () => granted });
  const grades = gradebookSide({ base: () => base, verifyBearer: tokens.verifyBearer, courseTitle: "Oral exams 101", rules: shape.gradebook ?? "spec",
    reviewHref: (linkId, userId) => `/review/${encodeURIComponent(linkId)}/${encodeURIComponent(userId)}?user=instructor-1` });
  // Submission Review: who launched, by their `sub` as the preset shapes it (`for_user`); reviews, a link with its learner under an id of their own.
  const userOfSub = new Map<string, LmsUser>();
  const reviews = new Map<string, ResourceLink>();
  const openReview = (linkId: string, sub: string): string | undefined => {
    const [link, user, id] = [links.get(linkId), userOfSub.get(sub), `sr-${randomUUID().slice(0, 8)}`];
    if (link && user) reviews.set(id, { ...link, forUser: { userId: sub, user } });
    return link && user ? id : undefined;
  };
  // The course's id as this preset's launches name it: the origin of a course copy.
  const courseId = String((shape.claims({ [CONTEXT]: { id: "course-1" } }, { issuer: "", clientId, deploymentId, user: USERS[0]!, link: undefined, base: "http://lms.invalid" })[CONTEXT] as { id?: unknown } | undefined)?.id);
  const notices = noticeSide({ base: () => base, issuer, clientId: () => clientId, deploymentId, courseId, toolOrigin: () => tool?.origin, key: () => keys[0]!, stranger, verifyBearer: tokens.verifyBearer });
  const members = membershipSide({ base: () => base, users: USERS, verifyBearer: tokens.verifyBearer, context: { id: "course-1", label: "ORAL-101", title: "Oral exams 101" } });
  const registering = registrationSide({
    base: () => base,
    adopt: (registered) => {
      clientId = registered.clientId;
      granted = new Set(registered.scopes.filter((s) => GRANTABLE_SCOPES.has(s)));
      tool = { root: registered.login.replace(/\/lti\/login$/, ""), login: registered.login, redirect: registered.redirect, origin: new URL(registered.login).origin };
    },
  });

  const app = express();
  app.disable("x-powered-by");
  app.use(registering.router);
  app.post("/token", ...tokens.route);
  app.use(grades.router);
  if (shape.notices) app.use(notices.router);
  app.get(members.path, members.route);
  app.get("/jwks", (_req, res) => {
    jwksFetches += 1;
    res.json({ keys: keys.map((k) => k.publicJwk) });
  });
  const auth: express.RequestHandler = async (req, res) => {
    const p = (req.method === "POST" ? req.body : req.query) as Record<string, string | undefined>;
    const problems: string[] = [];
    const expect = (name: string, value: string) => { if (p[name] !== value) problems.push(`${name} must be ${value}`); };
    expect("scope", "openid");
    expect("response_type", "id_token");
    expect("response_mode", "form_post");
    expect("prompt", "none");
    expect("client_id", clientId);
    if (!tool || p.redirect_uri !== tool.redirect) problems.push("redirect_uri is not the registered one");
    for (const name of ["state", "nonce", "login_hint", "lti_message_hint"]) if (!p[name]) problems.push(`${name} is missing`);
    const user = USERS.find((u) => u.id === p.login_hint) ?? members.member(p.login_hint ?? "");
    const linkId = hintedLink(p.lti_message_hint ?? "");
    const link = linkId === undefined ? undefined : placement(linkId);
    if (p.login_hint && !user) problems.push("login_hint names no user");
    if (p.lti_message_hint && linkId === undefined) problems.push("lti_message_hint was already used (launch_no_longer_valid)");
    else if (p.lti_message_hint && !link) problems.push("lti_message_hint names no resource link");
    if (problems.length > 0 || !user || !link || !tool) {
      res.status(400).type("text/plain").send(`invalid authentication request: ${problems.join("; ")}`);
      return;
    }
    const idToken = await mintLaunch({
      issuer: issuer(), clientId, deploymentId, user, link, nonce: p.nonce!, targetLinkUri: tool.redirect,
      key: keys[0]!, stranger, fault, extraClaims, shape, base, membershipsUrl: members.url(), agsEndpoint: agsClaim(linkId ?? ""),
      ...(shape.notices ? { notices: notices.claim() } : {}),
    });
    const sub = decodeJwt(idToken).sub;
    if (sub) {
      grades.saw(sub, user.name);
      userOfSub.set(sub, user);
    }
    res.setHeader("Cache-Control", "no-store");
    res.type("html").send(autoPostPage(tool.redirect, { id_token: idToken, state: p.state!, ...(shape.platformStorage ? { lti_storage_target: "post_message_forwarding" } : {}) }));
  };
  app.get("/auth", auth);
  app.post("/auth", express.urlencoded({ extended: false }), auth);
  app.get("/course", (req, res) => {
    const user = USERS.find((u) => u.id === String(req.query.user ?? "instructor-1"));
    if (!user) return void res.status(404).send("no such user");
    const home = (userId: string) => `/course?user=${encodeURIComponent(userId)}`;
    res.setHeader("Cache-Control", "no-store");
    res.type("html").send(courseHomePage({
      user, users: USERS, homeHref: home,
      links: [...links.values()].map((l) => ({ id: l.id, title: l.title, href: `/course/${encodeURIComponent(l.id)}?user=${encodeURIComponent(user.id)}` })),
      addExamHref: user.role === "Instructor" ? `/add-exam?user=${encodeURIComponent(user.id)}` : undefined,
      gradebookHref: user.role === "Instructor" ? "/gradebook" : undefined,
    }));
  });
  app.get("/course/:linkId", (req, res) => {
    const link = placement(req.params.linkId);
    if (!link || !tool) return void res.status(404).send("no such link");
    const user = String(req.query.user ?? "student-1");
    const inWindow = shape.documentTarget ? shape.documentTarget === "window" : "documentTarget" in link && link.documentTarget === "window";
    res.type("html").send(coursePage(`Course: ${"title" in link ? link.title : "Add an oral exam"}`, `/launch/${encodeURIComponent(req.params.linkId)}?user=${encodeURIComponent(user)}`, tool.origin, inWindow));
  });
  // The first document of the tool's frame: the login, auto-posted, as Canvas does.
  app.get("/launch/:linkId", (req, res) => {
    const link = placement(req.params.linkId);
    if (!tool || !link) return void res.status(404).send("no such link");
    // A window has no forwarding frame beside it (and its cookie travels): no Platform Storage.
    const inWindow = shape.documentTarget ? shape.documentTarget === "window" : "documentTarget" in link && link.documentTarget === "window";
    res.type("html").send(autoPostPage(tool.login, loginParams(String(req.query.user ?? "student-1"), req.params.linkId, inWindow || !shape.platformStorage ? {} : { lti_storage_target: "post_message_forwarding" })));
  });
  // The gradebook's "View submission": a Submission Review launch of the link for that learner, framed like a course page.
  app.get("/review/:linkId/:userId", (req, res) => {
    const id = openReview(req.params.linkId, req.params.userId);
    if (!id) return void res.status(404).send("no such link or learner");
    res.redirect(303, `/course/${encodeURIComponent(id)}?user=${encodeURIComponent(String(req.query.user ?? "instructor-1"))}`);
  });
  app.get("/add-exam", (req, res) => {
    res.redirect(303, `/course/${encodeURIComponent(linking.open({}))}?user=${encodeURIComponent(String(req.query.user ?? "instructor-1"))}`);
  });
  app.post("/deep-link-return", express.urlencoded({ extended: false, limit: "64kb" }), linking.returnRoute);
  app.get("/post_message_forwarding", (req, res) => {
    res.type("html").send(forwardingPage(String(req.query.tool ?? "")));
  });

  /** Single-use hints (shape.singleUseHint): hint → link id, removed at first use. */
  const openHints = new Map<string, string>();
  const hintFor = (linkId: string): string => {
    if (!shape.singleUseHint) return linkId;
    const hint = `${linkId}~${randomUUID().slice(0, 8)}`;
    openHints.set(hint, linkId);
    return hint;
  };
  /** The link a hint names; undefined for a single-use hint already used (or never issued). */
  const hintedLink = (hint: string): string | undefined => {
    const linkId = shape.singleUseHint ? openHints.get(hint) : hint;
    openHints.delete(hint);
    return linkId;
  };
  const loginParams = (userId: string, linkId: string, extra: Record<string, string> = {}): Record<string, string> => ({
    iss: issuer(), login_hint: userId, target_link_uri: tool?.redirect ?? "", lti_message_hint: hintFor(linkId), client_id: clientId,
    [shape.loginDeploymentParam]: deploymentId, ...shape.loginExtras, ...extra,
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(options.port ?? 0, host === "localhost" ? "127.0.0.1" : host, () => resolve(s));
  });
  base = `http://${host}:${(server.address() as AddressInfo).port}`;

  return {
    get url() { return base; },
    preset: shape.preset,
    product: shape.product,
    get issuer() { return issuer(); },
    get clientId() { return clientId; },
    deploymentId,
    get authorizationUrl() { return `${base}/auth`; },
    get jwksUrl() { return `${base}/jwks`; },
    users: USERS,
    get jwksFetches() { return jwksFetches; },
    registration(deployments = [deploymentId]) {
      return { issuer: issuer(), clientId, authorizationUrl: `${base}/auth`, jwksUrl: `${base}/jwks`, tokenUrl: `${base}/token`, deployments };
    },
    registerTool(toolUrl, { scopes } = {}) {
      granted = new Set(scopes ?? GRANTABLE_SCOPES);
      const root = toolUrl.replace(/\/+$/, "");
      tool = { root, login: `${root}/lti/login`, redirect: `${root}/lti/launch`, origin: new URL(root).origin };
    },
    dynamicRegistrationUrl: (toolRegisterUrl) => registering.startUrl(toolRegisterUrl),
    dynamicRegistrationPageUrl: (toolRegisterUrl) => `${base}/dynamic-registration?tool=${encodeURIComponent(toolRegisterUrl)}`,
    get toolRegistrations() { return registering.registrations; },
    setRegistrationFault: (next) => registering.setFault(next),
    addResourceLink,
    openDeepLinking: (options = {}) => linking.open(options),
    get deepLinkReturns() { return linking.returns; },
    loginUrl(userId, linkId, extra) {
      if (!tool) throw new Error("registerTool(toolUrl) first");
      return `${tool.login}?${new URLSearchParams(loginParams(userId, linkId, extra))}`;
    },
    courseUrl: (userId = "instructor-1") => `${base}/course?user=${encodeURIComponent(userId)}`,
    addExamPageUrl: (userId = "instructor-1") => `${base}/add-exam?user=${encodeURIComponent(userId)}`,
    coursePageUrl: (userId, linkId) => `${base}/course/${encodeURIComponent(linkId)}?user=${encodeURIComponent(userId)}`,
    setFault(next) {
      if (next !== undefined && !LMS_FAULTS.includes(next)) throw new Error(`unknown LMS fault ${String(next)}; one of ${LMS_FAULTS.join(", ")}`);
      fault = next;
    },
    async rotateKey(retire = false) {
      const key = await newKey();
      keys = retire ? [key] : [key, ...keys];
      return key.kid;
    },
    setClaims(extra) { extraClaims = extra; },
    setCertificationTest(name) {
      const test = name === undefined ? undefined : certificationLaunch(name);
      fault = test?.fault;
      extraClaims = { ...test?.claims };
      return test;
    },
    get tokenCounts() { return tokens.counts; },
    setTokenLifetime: (sec) => tokens.setTokenLifetime(sec),
    revokeTokens: () => tokens.revokeTokens(),
    gradebookUrl: () => `${base}/gradebook`,
    openSubmissionReview: openReview,
    get lineItems() { return grades.lineItems; },
    get scores() { return grades.scores; },
    gradebookResult: grades.resultOf, enterGrade: grades.enterGrade, setGradeType: grades.setGradeType,
    get gradebookCounts() { return grades.counts; },
    setGradebookOutage: (ms) => grades.setOutage(ms),
    get membershipCounts() { return members.counts; },
    setRoster: (roster) => members.setRoster(roster),
    setMembershipsFault: (next) => members.setFault(next),
    courseId,
    copyCourse: (input) => notices.copyCourse(input),
    get noticeHandlers() { return notices.handlers; },
    get noticeCounts() { return notices.counts; },
    close: () => new Promise<void>((resolve, reject) => {
      server.closeAllConnections?.();
      server.close((e) => (e ? reject(e) : resolve()));
    }),
  };
}

