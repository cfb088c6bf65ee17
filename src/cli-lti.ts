/**
 * `express-oral-assessments lti list|activate|deactivate|delete --store …`: the tool's
 * administrator manages the LTI registrations Dynamic Registration stored, with no code
 * (issue 27.10): the store is opened from its address (`sqlite:PATH` or a `postgres://`
 * connection string, the same database the app uses), the change made, the store closed.
 * A running app sees an activation within a second (registration-source.ts). Nothing
 * printed holds a password: the connection string is never echoed. What an LMS sent is
 * printed with its control characters escaped (core/control-characters.ts).
 */
import { parseArgs } from "node:util";
import { localTime } from "./core/human-time.js";
import { escapeControlCharacters } from "./core/control-characters.js";
import { postgresStore } from "./store/postgres.js";
import { sqliteStore } from "./store/sqlite.js";
import type { OralStoreWithLti } from "./store/types.js";

export const LTI_USAGE = `Usage: express-oral-assessments lti <list|activate|deactivate|delete> --store STORE [options]

Lists or changes the LTI registrations kept in the app's store (Dynamic Registration's).

Options:
  --store STORE       sqlite:PATH (e.g. sqlite:./oral.db) or postgres://user:pass@host/db (required)
  --schema NAME       PostgreSQL schema (default public)
  --table-prefix P    PostgreSQL table prefix (default oral_)
  --issuer URL        the registration's issuer (activate, deactivate, delete)
  --client-id ID      the registration's client id (activate, deactivate, delete)
  -h, --help          show this help
`;

function openStore(address: string, values: { schema?: string; "table-prefix"?: string }, usage: (message: string) => Error): OralStoreWithLti {
  if (address.startsWith("sqlite:")) return sqliteStore({ filename: address.slice("sqlite:".length) });
  if (/^postgres(ql)?:\/\//.test(address)) {
    return postgresStore({ connectionString: address, ...(values.schema ? { schema: values.schema } : {}), ...(values["table-prefix"] ? { tablePrefix: values["table-prefix"] } : {}) });
  }
  throw usage("--store must be sqlite:PATH or a postgres:// connection string.");
}

/** Writes what it did to `out`; throws `usage(…)` for a bad command line, an Error when there is no such registration. */
export async function runLti(args: string[], usage: (message: string) => Error, out: (line: string) => void = (l) => process.stdout.write(`${l}\n`)): Promise<void> {
  const { values, positionals } = parseArgs({
    args, allowPositionals: true,
    options: { store: { type: "string" }, issuer: { type: "string" }, "client-id": { type: "string" }, schema: { type: "string" }, "table-prefix": { type: "string" }, help: { type: "boolean", short: "h" } },
  });
  const [action] = positionals;
  if (values.help) return out(LTI_USAGE);
  if (!["list", "activate", "deactivate", "delete"].includes(action ?? "")) throw usage("lti needs one of list, activate, deactivate, delete.");
  if (values.store === undefined) throw usage("lti needs --store (sqlite:PATH or postgres://…).");
  if (action !== "list" && (values.issuer === undefined || values["client-id"] === undefined)) throw usage(`lti ${action} needs --issuer and --client-id (see lti list).`);
  const store = openStore(values.store, values, usage);
  try {
    await store.init();
    if (action === "list") {
      const list = await store.listLtiRegistrations();
      if (list.length === 0) out("No LTI registrations in this store.");
      for (const r of list) {
        // Every field but `active` is what an LMS (or whoever reached the registration URL) sent: escaped, never obeyed.
        const t = (v: unknown) => escapeControlCharacters(String(v));
        const deployments = r.deployments.map((d) => (d.organization ? `${t(d.id)} (${t(d.organization)})` : t(d.id))).join(", ") || "none yet";
        out(`${r.active ? "active " : "PENDING"}  issuer ${t(r.issuer)}  client id ${t(r.clientId)}  registered ${t(localTime(r.createdAt))}  via ${t(r.data.openidConfiguration ?? r.data.via ?? "store")}  deployments: ${deployments}`);
      }
      return;
    }
    const issuer = values.issuer!;
    const clientId = values["client-id"]!;
    const done = action === "delete" ? await store.deleteLtiRegistration(issuer, clientId) : await store.setLtiRegistrationActive(issuer, clientId, action === "activate");
    const named = `issuer ${escapeControlCharacters(issuer)}, client id ${escapeControlCharacters(clientId)}`;
    if (!done) throw new Error(`No registration with ${named} in this store (see lti list).`);
    out(`${action === "activate" ? "Activated" : action === "deactivate" ? "Deactivated" : "Deleted"}: ${named}. A running app sees it within a second.`);
  } finally {
    await store.close();
  }
}
