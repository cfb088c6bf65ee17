/**
 * A tiny passport-free host app for the benchmark: the "session" is a cookie
 * `bench_user=<id>` that sets `req.user` (one cookie per student, as each browser has
 * its own session), with the router mounted at `/oral`.
 */
import http from "node:http";
import express from "express";
import { createPlatformClient, memoryStore, oralAssessments } from "express-oral-assessments";

/** Student `i` of the benchmark, as `req.user` and as a roster entry. */
export function studentOf(i) {
  return { id: `s${i}`, email: `s${i}@bench.example`, firstName: "Student", lastName: `No${i}`, orgInternalId: `s${i}` };
}

const INSTRUCTOR = { id: "ins", role: "instructor", email: "ins@bench.example", firstName: "Ines", lastName: "Instructor" };

/** `org`: with a host of many organizations, the school the user belongs to. */
export function cookieOf(user, org) {
  return org === undefined ? `bench_user=${user}` : `bench_user=${user}; bench_org=${org}`;
}

/**
 * Starts a host app with its own platform client. `client` and `router` options are
 * passed through; `examHost` defaults to the emulator (a "custom domain" needing tokens).
 * `organizationOf(id)`: many organizations instead, the `bench_org` cookie naming the
 * request's (answers `{ apiKey, examHost }`); `client` then configures every client.
 * `fallbackOrganization`: the school of a request without that cookie (an LMS's posts).
 * `trustProxy`: Express's `trust proxy` setting (default unset).
 */
export async function startHost(emulator, { client = {}, router = {}, organizationOf, fallbackOrganization, trustProxy } = {}) {
  const platform = organizationOf ? undefined : createPlatformClient({ apiKey: emulator.testKey, baseUrl: emulator.url, ...client });
  const single = { platform, examHost: emulator.url };
  const many = organizationOf && {
    organizationClient: client,
    organization: (req) => {
      const id = /(?:^|;\s*)bench_org=([\w.-]+)/.exec(req.headers.cookie ?? "")?.[1] ?? fallbackOrganization;
      const found = id && organizationOf(id);
      return found ? { id, baseUrl: emulator.url, ...found } : undefined;
    },
  };
  const users = new Map();
  const userFor = (id) => {
    // "ins" is the instructor; "ins1", "ins2"… more instructors of the same school (their own caps).
    if (id === "ins") return INSTRUCTOR;
    if (/^ins\d+$/.test(id)) return { ...INSTRUCTOR, id, email: `${id}@bench.example` };
    let user = users.get(id);
    if (!user) users.set(id, (user = studentOf(id)));
    return user;
  };
  const app = express();
  // `trustProxy` (e.g. "loopback"): X-Forwarded-For names the client, as behind a proxy.
  if (trustProxy !== undefined) app.set("trust proxy", trustProxy);
  app.use((req, _res, next) => {
    const m = /(?:^|;\s*)bench_user=(\w+)/.exec(req.headers.cookie ?? "");
    if (m) req.user = userFor(m[1]);
    next();
  });
  const oral = oralAssessments({
    canLaunch: "any-signed-in-user", // the bench launches generated students on no roster
    ...(many ?? single),
    store: memoryStore(),
    isInstructor: (req) => req.user?.role === "instructor",
    ...router,
  });
  app.use("/oral", oral);
  const server = http.createServer(app);
  // Launch requests received (a first click or a waiting page's refresh): what the host's CPU is divided by.
  const launches = { requests: 0, students: 0 };
  server.prependListener("request", (req) => {
    if (!req.url.startsWith("/oral/launch/")) return;
    launches.requests += 1;
    if (!req.url.includes("wait=")) launches.students += 1;
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const url = `http://127.0.0.1:${server.address().port}`;

  const seedExam = (name, org) => seedExamAt(url, name, org);

  /** Instructor JSON call to the router (prepare, progress). */
  async function instructor(method, path, body, org) {
    const res = await fetch(`${url}/oral${path}`, {
      method,
      headers: { cookie: cookieOf("ins", org), ...(body === undefined ? {} : { "content-type": "application/json" }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, body: await res.json() };
  }

  return {
    url,
    platform,
    router: oral,
    seedExam,
    instructor,
    /** Launch requests so far: `{ requests, students }` (students: those without a `wait=`, first arrivals). */
    launches: () => ({ ...launches }),
    close: async () => {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
      await oral.close();
      platform?.close();
    },
  };
}

/** Course → class → exam through the instructor API of the host at `url`; returns the ids. */
export async function seedExamAt(url, name, org) {
  const call = async (path, body) => {
    const res = await fetch(`${url}/oral${path}`, {
      method: "POST",
      headers: { "content-type": "application/json", cookie: cookieOf("ins", org) },
      body: JSON.stringify(body),
    });
    if (res.status !== 201) throw new Error(`seeding ${path}: ${res.status} ${await res.text()}`);
    return (await res.json()).data;
  };
  const course = await call("/courses", { name });
  const cls = await call(`/courses/${course._id}/classes`, { name, startDate: "2026-09-01", endDate: "2026-12-20" });
  const exam = await call("/oral-assessments", { name, classId: cls._id, questions: [{ text: "Why?" }] });
  return { courseId: course._id, classId: cls._id, examId: exam._id };
}
