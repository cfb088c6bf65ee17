/**
 * `express-oral-assessments lms --tool URL [--port N]`: runs the LMS emulator
 * (`createLmsEmulator`) in the foreground, registered with the tool mounted at URL, and
 * prints the registration to give the tool (`lti.registrations`), the values an LMS
 * administrator would enter, and the page where the instructor adds an oral exam
 * (Deep Linking) and then opens it as a student. Stops cleanly on SIGINT or SIGTERM.
 */
import { parseArgs } from "node:util";
import { isWholeNumber } from "./core/whole-number.js";
import { createLmsEmulator, LMS_PRESETS, type LmsPreset } from "./emulator/index.js";

export const LMS_USAGE = `Usage: express-oral-assessments lms --tool URL [options]

Runs a local LMS (an LTI 1.3 platform) for a tool mounted at URL.

Options:
  --tool URL     the router's public mount URL, e.g. http://127.0.0.1:3000/oral (required)
  --port N       port to listen on (default 4020; 0 picks a free one)
  --preset NAME  mint launches as this LMS sends them: ${LMS_PRESETS.join(", ")}
                 (default emulator; see docs/lti.md, "What each LMS sends")
  -h, --help     show this help
`;

const DEFAULT_PORT = 4020;

export async function runLms(args: string[], usage: (message: string) => Error): Promise<void> {
  const { values } = parseArgs({ args, options: { tool: { type: "string" }, port: { type: "string" }, preset: { type: "string" }, help: { type: "boolean", short: "h" } } });
  if (values.help) {
    process.stdout.write(LMS_USAGE);
    return;
  }
  const port = values.port === undefined ? DEFAULT_PORT : Number(values.port);
  if (!isWholeNumber(port, 0, 65_535)) throw usage("--port must be a whole number from 0 to 65535.");
  const tool = values.tool;
  if (!tool || !URL.canParse(tool) || !/^https?:$/.test(new URL(tool).protocol)) throw usage("--tool must be the tool's mount URL, e.g. http://127.0.0.1:3000/oral.");
  const preset = values.preset ?? "emulator";
  if (!(LMS_PRESETS as readonly string[]).includes(preset)) throw usage(`--preset must be one of ${LMS_PRESETS.join(", ")}.`);
  const lms = await createLmsEmulator({ port, preset: preset as LmsPreset });
  lms.registerTool(tool);
  const root = tool.replace(/\/+$/, "");
  const registration = JSON.stringify(lms.registration(), null, 2).replace(/\n/g, "\n  ");
  // The handlers before "listening": whoever stops the LMS emulator on reading it finds them.
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1);
    stopping = true;
    process.stdout.write(`\n${signal}: stopping the LMS emulator…\n`);
    lms.close().then(() => process.exit(0), () => process.exit(1));
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  process.stdout.write(`LMS emulator listening on ${lms.url} (launches shaped as ${lms.product} sends them)

  Registration (the tool's lti.registrations entry; add lti.allowLoopbackHttp: true, this LMS is plain http):
  ${registration}

  What the LMS knows of the tool: login ${root}/lti/login, redirect ${root}/lti/launch,
  key set ${root}/lti/jwks.json

  Or, with lti.dynamicRegistration: { allowLoopbackHttp: true } (this LMS is plain http): register by URL   ${lms.dynamicRegistrationPageUrl(`${root}/lti/register`)}
  (then activate the stored registration; launches use its new client id)

  Add an oral exam (instructor)   ${lms.addExamPageUrl()}
  Then open it as a student from the page that follows.

Press Ctrl+C to stop.
`);
}
