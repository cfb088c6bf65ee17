/**
 * The LMS emulator (`createLmsEmulator`) in a process of its own, so the LTI storm's
 * RS256 signing of 600 id_tokens does not share the router's event loop (a real LMS is
 * another machine). Started by lti.js with LMS_OPTIONS (JSON: `preset`, `users`); sends
 * `{ url, registration }` once listening; answers IPC messages `{ registerTool: url }`
 * `{ openDeepLinking: true }` (→ the request's link id), `{ addResourceLink: link }`
 * (→ its id), `{ counts: true }` (→ its token endpoint's and NRPS's counters) and
 * `{ gradebook: true }` (→ the AGS scores and line items received); stops when the parent
 * disconnects.
 */
import { createLmsEmulator } from "express-oral-assessments/emulator";

const lms = await createLmsEmulator(JSON.parse(process.env.LMS_OPTIONS ?? "{}"));
process.on("message", ({ id, registerTool, openDeepLinking, addResourceLink, counts, gradebook }) => {
  try {
    if (counts) return void process.send({ id, result: { tokens: { ...lms.tokenCounts }, nrpsPages: lms.membershipCounts.pages } });
    if (registerTool !== undefined) process.send({ id, result: (lms.registerTool(registerTool), true) });
    else if (openDeepLinking) process.send({ id, result: lms.openDeepLinking({}) });
    else if (addResourceLink !== undefined) process.send({ id, result: lms.addResourceLink(addResourceLink).id });
    else if (gradebook) process.send({ id, result: { scores: lms.scores.length, started: new Set(lms.scores.filter((s) => s.activityProgress === "Started").map((s) => s.userId)).size, submitted: lms.scores.filter((s) => s.activityProgress === "Submitted").length, lineItems: lms.lineItems.length, tokensIssued: lms.tokenCounts.issued } });
  } catch (error) {
    process.send({ id, error: String(error) });
  }
});
process.on("disconnect", () => {
  lms.close().then(() => process.exit(0));
});
process.send({ url: lms.url, registration: lms.registration() });
