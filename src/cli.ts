#!/usr/bin/env node
/**
 * `express-oral-assessments emulator [--port N] [--host H] [--ticket-param NAME]
 *   [--organization ID:NAME]… [--verbose]`
 *
 * Runs the platform emulator in the foreground and prints what an integrator needs to
 * point an app at it: base URL, its test and live keys, the exam page pattern and the
 * control URL; with `--organization`, each organization's name, keys and exam host. Printing those keys is deliberate: they are random, local and die with the
 * process (set ORAL_EMULATOR_TEST_KEY / ORAL_EMULATOR_LIVE_KEY to keep them stable across
 * restarts). Nothing else the emulator writes ever contains a key.
 *
 * Stops cleanly (server closed, exit 0) on SIGINT or SIGTERM.
 *
 * `express-oral-assessments lms --tool URL [--port N]`: the LMS emulator (cli-lms.ts).
 * `express-oral-assessments lti list|activate|… --store …`: stored LTI registrations (cli-lti.ts).
 */
import { parseArgs } from "node:util";
import type { Logger } from "./core/logger.js";
import { isWholeNumber } from "./core/whole-number.js";
import { startEmulator, type Emulator } from "./emulator/index.js";
import { LMS_USAGE, runLms } from "./cli-lms.js";
import { LTI_USAGE, runLti } from "./cli-lti.js";

const EMULATOR_USAGE = `Usage: express-oral-assessments emulator [options]

Runs a local stand-in for the oral-assessment platform.

Options:
  --port N             port to listen on (default 4010; 0 picks a free one)
  --host H             interface to bind (default 127.0.0.1)
  --ticket-param NAME  query parameter the exam page reads the ticket from (default __clerk_ticket)
  --organization ID:NAME
                       an organization (school) with its own keys, records and exam host;
                       repeat for each, e.g. --organization north:"North High"
                       --organization south:"South College". Exam hosts listen on the
                       ports after --port (4011, 4012, …; free ones with --port 0)
  --verbose            print one line per request (never keys or tokens)
  -h, --help           show this help

Environment:
  ORAL_EMULATOR_TEST_KEY, ORAL_EMULATOR_LIVE_KEY   fixed keys instead of random ones
                                                   (the first organization's)
`;

const USAGE = `${EMULATOR_USAGE}\n${LMS_USAGE}\n${LTI_USAGE}`;

const DEFAULT_PORT = 4010;

/** One line per request for --verbose. The objects logged never hold keys or tokens. */
function lineLogger(): Partial<Logger> {
  const line = (obj: Record<string, unknown>, msg?: string) => {
    const fields = Object.entries(obj).map(([k, v]) => `${k}=${typeof v === "string" ? v : JSON.stringify(v)}`);
    process.stdout.write(`${new Date().toISOString()} ${msg ?? ""} ${fields.join(" ")}\n`);
  };
  return { debug: line, info: line, warn: line, error: line };
}

async function runEmulator(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: "string" },
      host: { type: "string" },
      "ticket-param": { type: "string" },
      organization: { type: "string", multiple: true },
      verbose: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(EMULATOR_USAGE);
    return;
  }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!isWholeNumber(port, 0, 65_535)) {
    throw new UsageError(`--port must be a whole number from 0 to 65535.`);
  }
  const testKey = process.env.ORAL_EMULATOR_TEST_KEY;
  const liveKey = process.env.ORAL_EMULATOR_LIVE_KEY;
  const testKeys = testKey ? [testKey] : undefined;
  const liveKeys = liveKey ? [liveKey] : undefined;
  const organizations = values.organization?.map((spec, i) => ({
    ...parseOrganization(spec),
    // Predictable exam hosts next to a fixed port, so an app's configuration survives a restart.
    examPort: port === 0 ? 0 : port + 1 + i,
    ...(i === 0 ? { testKeys, liveKeys } : {}),
  }));

  const emulator = await startEmulator({
    port,
    host: values.host,
    ticketParam: values["ticket-param"],
    ...(organizations ? { organizations } : { testKeys, liveKeys }),
    logger: values.verbose ? lineLogger() : undefined,
  });

  // The handlers first: a supervisor (or a test) that stops the emulator as soon as it
  // reads "listening" must find them installed, or Node's default handler kills the process.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1); // a second Ctrl+C: do not wait any longer
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the emulator…\n`);
    emulator.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);

  process.stdout.write(organizations ? organizationsBanner(emulator) : `Oral-assessment platform emulator listening on ${emulator.url}

  Base URL     ${emulator.url}   (API under /api/v1/dev and /api/v1/prod)
  Test key     ${emulator.testKey}   (dev)
  Live key     ${emulator.liveKey}   (prod)
  Exam pages   ${emulator.examHost}/exam/<examId>?${emulator.ticketParam}=<token>   (role-plays: /exam/<id>/roleplay)
  Sign-in      ${emulator.url}/sign-in   (the platform host's own, for launches without a custom domain)
  Control      ${emulator.url}/__emulator   (state, reset, faults, latency, requests)

These keys are local throwaways. Press Ctrl+C to stop.
`);
}

/** `north:North High` → `{ id: "north", name: "North High" }`; the emulator checks both parts. */
function parseOrganization(spec: string): { id: string; name: string } {
  const colon = spec.indexOf(":");
  if (colon < 0) throw new UsageError(`--organization takes ID:NAME, e.g. north:"North High" (got "${spec}").`);
  return { id: spec.slice(0, colon), name: spec.slice(colon + 1) };
}

function organizationsBanner(emulator: Emulator): string {
  const schools = emulator.organizations.map((o) => `  ${o.name} (${o.id})
    Test key     ${o.testKey}   (dev)
    Live key     ${o.liveKey}   (prod)
    Exam host    ${o.examHost}   (exam pages: /exam/<examId>?${emulator.ticketParam}=<token>)
`);
  return `Oral-assessment platform emulator listening on ${emulator.url}

  Base URL     ${emulator.url}   (API under /api/v1/dev and /api/v1/prod)
  Sign-in      ${emulator.url}/sign-in   (the platform host's own, for launches without a custom domain)
  Control      ${emulator.url}/__emulator   (state, reset, faults, latency, requests)

${schools.join("\n")}
These keys are local throwaways. Press Ctrl+C to stop.
`;
}

class UsageError extends Error {}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === undefined || command === "help" || command === "--help" || command === "-h") {
    // Asked for help → stdout, exit 0; no command at all is a usage error → stderr, exit 2.
    (command === undefined ? process.stderr : process.stdout).write(USAGE);
    process.exitCode = command === undefined ? 2 : 0;
    return;
  }
  if (command === "lms") return runLms(rest, (message) => new UsageError(message));
  if (command === "lti") return runLti(rest, (message) => new UsageError(message));
  if (command !== "emulator") throw new UsageError(`Unknown command "${command}".`);
  await runEmulator(rest);
}

main(process.argv.slice(2)).catch((err: unknown) => {
  const message = err instanceof Error ? err.message : String(err);
  const usage = err instanceof UsageError || (err as { code?: string } | null)?.code?.startsWith("ERR_PARSE_ARGS");
  process.stderr.write(`express-oral-assessments: ${message}\n${usage ? `\n${USAGE}` : ""}`);
  process.exit(usage ? 2 : 1);
});
