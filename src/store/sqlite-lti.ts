/**
 * The SQLite store's LTI registrations (schema version 6): statements prepared once per
 * opened database, a registration read with its deployments in one transaction.
 */
import type BetterSqlite3 from "better-sqlite3";
import {
  checkLtiDeployment, checkLtiKey, checkLtiRegistration, ltiRegistrationColumns, toLtiRegistrations,
  type LtiDeploymentRow, type LtiRegistrationRow, type OralStoreLti,
} from "./lti-types.js";
import { sqliteLtiCourses } from "./sqlite-lti-courses.js";
import { sqliteLtiGradebook } from "./sqlite-lti-gradebook.js";

const REGISTRATION = "issuer, client_id, authorization_url, jwks_url, token_url, active, accept_new_deployments, organization, data, created_at";

const SQL = {
  // Latest wins; the row (and so its seq, the list's order) and its deployments stay.
  put: `INSERT INTO lti_registrations (${REGISTRATION}, created_ms)
    VALUES (@issuer, @clientId, @authorizationUrl, @jwksUrl, @tokenUrl, @active, @acceptNew, @organization, @data, @createdAt, @createdMs)
    ON CONFLICT (issuer, client_id) DO UPDATE SET authorization_url = excluded.authorization_url, jwks_url = excluded.jwks_url,
      token_url = excluded.token_url, active = excluded.active, accept_new_deployments = excluded.accept_new_deployments,
      organization = excluded.organization, data = excluded.data, created_at = excluded.created_at, created_ms = excluded.created_ms`,
  get: `SELECT ${REGISTRATION} FROM lti_registrations WHERE issuer = @issuer AND client_id = @clientId`,
  list: `SELECT ${REGISTRATION} FROM lti_registrations ORDER BY seq`,
  deploymentsOf: "SELECT issuer, client_id, deployment_id, organization FROM lti_deployments WHERE issuer = @issuer AND client_id = @clientId ORDER BY seq",
  deployments: "SELECT issuer, client_id, deployment_id, organization FROM lti_deployments ORDER BY seq",
  setActive: "UPDATE lti_registrations SET active = @active WHERE issuer = @issuer AND client_id = @clientId",
  // Only under an existing registration: the SELECT yields no row otherwise.
  putDeployment: `INSERT INTO lti_deployments (issuer, client_id, deployment_id, organization)
    SELECT issuer, client_id, @deploymentId, @organization FROM lti_registrations WHERE issuer = @issuer AND client_id = @clientId
    ON CONFLICT (issuer, client_id, deployment_id) DO UPDATE SET organization = excluded.organization`,
  delete: "DELETE FROM lti_registrations WHERE issuer = @issuer AND client_id = @clientId",
  deleteDeployments: "DELETE FROM lti_deployments WHERE issuer = @issuer AND client_id = @clientId",
} as const;

type Statements = Record<keyof typeof SQL, BetterSqlite3.Statement>;

export function sqliteLti(ready: () => Promise<{ db: BetterSqlite3.Database }>): OralStoreLti {
  const prepared = new WeakMap<BetterSqlite3.Database, { s: Statements; read: (key?: { issuer: string; clientId: string }) => ReturnType<typeof toLtiRegistrations>; remove: (key: { issuer: string; clientId: string }) => boolean }>();
  const handle = async () => {
    const { db } = await ready();
    let found = prepared.get(db);
    if (!found) {
      const s = Object.fromEntries(Object.entries(SQL).map(([name, sql]) => [name, db.prepare(sql)])) as Statements;
      // One read transaction: the registration and its deployments from the same snapshot.
      const read = db.transaction((key?: { issuer: string; clientId: string }) => key
        ? toLtiRegistrations(s.get.all(key) as LtiRegistrationRow[], s.deploymentsOf.all(key) as LtiDeploymentRow[])
        : toLtiRegistrations(s.list.all() as LtiRegistrationRow[], s.deployments.all() as LtiDeploymentRow[]));
      const remove = db.transaction((key: { issuer: string; clientId: string }) => {
        s.deleteDeployments.run(key);
        return s.delete.run(key).changes === 1;
      });
      found = { s, read, remove: (key) => remove.immediate(key) };
      prepared.set(db, found);
    }
    return found;
  };
  return {
    ...sqliteLtiCourses(ready),
    ...sqliteLtiGradebook(ready),
    async putLtiRegistration(record) {
      checkLtiRegistration(record);
      (await handle()).s.put.run(ltiRegistrationColumns(record));
    },
    async getLtiRegistration(issuer, clientId) {
      checkLtiKey(issuer, clientId);
      return (await handle()).read({ issuer, clientId })[0];
    },
    async listLtiRegistrations() {
      return (await handle()).read();
    },
    async setLtiRegistrationActive(issuer, clientId, active) {
      checkLtiKey(issuer, clientId);
      return (await handle()).s.setActive.run({ issuer, clientId, active: active ? 1 : 0 }).changes === 1;
    },
    async putLtiDeployment(issuer, clientId, deployment) {
      checkLtiKey(issuer, clientId);
      checkLtiDeployment(deployment);
      const params = { issuer, clientId, deploymentId: deployment.id, organization: deployment.organization ?? null };
      return (await handle()).s.putDeployment.run(params).changes === 1;
    },
    async deleteLtiRegistration(issuer, clientId) {
      checkLtiKey(issuer, clientId);
      return (await handle()).remove({ issuer, clientId });
    },
  };
}
