/**
 * The launch record's CSV export escapes what a student typed (RFC 4180 and the
 * spreadsheet-formula rule of src/router/records/csv.ts), over real HTTP: records holding
 * a formula prefix (`= + - @`, a leading tab or CR), a comma, a quote and line breaks are
 * put in the router's store, the instructor exports them as CSV, and each field reads back
 * exactly as expected: one case per rule, so removing any one rule fails its own case.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { memoryStore } from "../../src/store/memory.js";
import type { LaunchRecord } from "../../src/store/types.js";
import { startStack, type Stack } from "../support/stack.js";

let stack: Stack;
let examId: string;
const store = memoryStore();

/** The exported `orgInternalId,email,instance` fields of each case, as the CSV text has them. */
const CASES: [string, { id: string; email: string; instance?: string }, string][] = [
  ["a plain field as it is", { id: "u-plain", email: "plain@school.test" }, "u-plain,plain@school.test,"],
  ["a formula (=) prefixed with ' and quoted for its quotes", { id: "u-eq", email: '=HYPERLINK("http://evil.example","x")' }, `u-eq,"'=HYPERLINK(""http://evil.example"",""x"")",`],
  ["a + formula prefixed", { id: "u-plus", email: "+1+cmd|' /C calc'!A0" }, "u-plus,'+1+cmd|' /C calc'!A0,"],
  ["a - formula prefixed", { id: "-2+3", email: "minus@school.test" }, "'-2+3,minus@school.test,"],
  ["an @ formula prefixed", { id: "u-at", email: "@SUM(A1:A9)" }, "u-at,'@SUM(A1:A9),"],
  ["a leading tab prefixed", { id: "u-tab", email: "\t=1+1" }, "u-tab,'\t=1+1,"],
  ["a leading CR prefixed and quoted", { id: "u-cr", email: "\r=1+1" }, "u-cr,\"'\r=1+1\","],
  ["a comma quoted", { id: "u-comma", email: "a,b@school.test" }, 'u-comma,"a,b@school.test",'],
  ["quotes doubled inside quotes", { id: 'u-"q"', email: "q@school.test" }, '"u-""q""",q@school.test,'],
  ["a line feed quoted", { id: "u-lf", email: "line1\nline2" }, 'u-lf,"line1\nline2",'],
  ["a CR LF quoted", { id: "u-crlf", email: "line1\r\nline2" }, 'u-crlf,"line1\r\nline2",'],
  ["an instance with a comma quoted", { id: "u-inst", email: "inst@school.test", instance: "pod,7" }, 'u-inst,inst@school.test,"pod,7"'],
];

beforeAll(async () => {
  stack = await startStack({ router: { store } });
  ({ examId } = await stack.seedExam());
  const records: LaunchRecord[] = CASES.map(([, c], i) => ({
    at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)).toISOString(), kind: "oral", examId, outcome: "redirected", status: 303, servedBy: "on_demand", via: "link",
    student: { orgInternalId: c.id, email: c.email }, ...(c.instance === undefined ? {} : { instance: c.instance }),
  }));
  await store.addLaunches("default", records);
});

afterAll(async () => { await stack?.close(); });

/** Each record's exported fields after `via` (the export is newest first). */
async function exported(): Promise<string[]> {
  const ines = await stack.login("ines");
  const res = await ines.get(`/oral/oral-assessments/${examId}/launches`).set("Accept", "text/csv");
  expect(res.status).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^text\/csv/);
  const prefix = new RegExp(`^\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z,oral,${examId},redirected,303,on_demand,link,`);
  const lines: string[] = [];
  // Records start at a line break followed by their time stamp; a field's own line breaks stay inside it.
  const body = res.text.slice(res.text.indexOf("\r\n") + 2);
  for (const line of body.split(/\r\n(?=\d{4}-\d\d-\d\dT)/)) {
    const rest = line.replace(/\r\n$/, "").replace(prefix, "");
    if (rest === line) throw new Error(`unexpected line ${JSON.stringify(line)}`);
    lines.push(rest);
  }
  return lines;
}

describe("the launch record's CSV export", () => {
  let lines: string[];
  beforeAll(async () => { lines = await exported(); });

  it("exports one line per record", () => {
    expect(lines.length).toBe(CASES.length);
  });

  it.each(CASES)("escapes %s", (_name, _case, expected) => {
    expect(lines, JSON.stringify(expected)).toContain(expected);
  });

  it("reads back as the stored values with an RFC 4180 parser, the formula prefix aside", () => {
    const parsed = lines.map(parseCsvLine);
    for (const [, c] of CASES) {
      const strip = (v: string) => v.replace(/^'(?=[=+\-@\t\r])/, "");
      expect(parsed.map((f) => f.map(strip)), c.id).toContainEqual([c.id, c.email, c.instance ?? ""]);
    }
  });
});

/** One CSV record (RFC 4180: quoted fields, doubled quotes, line breaks inside quotes). */
function parseCsvLine(line: string): string[] {
  const fields: string[] = [];
  let i = 0;
  for (;;) {
    let value = "";
    if (line[i] === '"') {
      i += 1;
      for (;;) {
        const q = line.indexOf('"', i);
        if (q < 0) throw new Error(`unterminated quote in ${JSON.stringify(line)}`);
        value += line.slice(i, q);
        if (line[q + 1] === '"') { value += '"'; i = q + 2; } else { i = q + 1; break; }
      }
    } else {
      const end = line.indexOf(",", i);
      value = line.slice(i, end < 0 ? line.length : end);
      i = end < 0 ? line.length : end;
    }
    fields.push(value);
    if (i >= line.length) return fields;
    if (line[i] !== ",") throw new Error(`a quote inside an unquoted field in ${JSON.stringify(line)}`);
    i += 1;
  }
}
