/**
 * The PostgreSQL store's LTI registrations (schema version 6). A registration and its
 * deployments are read in one statement each inside one REPEATABLE READ transaction, so
 * they come from the same snapshot; a deployment's foreign key refuses an orphan.
 */
import type { PostgresPool } from "./postgres-pool.js";
import { postgresLtiGradebook } from "./postgres-lti-gradebook.js";
import type { Names } from "./postgres-schema.js";
import {
  checkLtiDeployment, checkLtiKey, checkLtiRegistration, ltiRegistrationColumns, toLtiRegistrations,
  type LtiDeploymentRow, type LtiRegistrationRecord, type LtiRegistrationRow, type OralStoreLti,
} from "./lti-types.js";
import { postgresLtiCourses } from "./postgres-lti-courses.js";

const REGISTRATION = "issuer, client_id, authorization_url, jwks_url, token_url, active, accept_new_deployments, organization, data, created_at";

function ltiQueries(n: Names) {
  return {
    // $1 issuer … $11 created_ms. Latest wins; the row (its seq) and its deployments stay.
    put: `INSERT INTO ${n.ltiRegistrations} (${REGISTRATION}, created_ms)
      VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, $10, $11)
      ON CONFLICT (issuer, client_id) DO UPDATE SET authorization_url = EXCLUDED.authorization_url, jwks_url = EXCLUDED.jwks_url,
        token_url = EXCLUDED.token_url, active = EXCLUDED.active, accept_new_deployments = EXCLUDED.accept_new_deployments,
        organization = EXCLUDED.organization, data = EXCLUDED.data, created_at = EXCLUDED.created_at, created_ms = EXCLUDED.created_ms`,
    get: `SELECT ${REGISTRATION} FROM ${n.ltiRegistrations} WHERE issuer = $1 AND client_id = $2`,
    list: `SELECT ${REGISTRATION} FROM ${n.ltiRegistrations} ORDER BY seq`,
    deploymentsOf: `SELECT issuer, client_id, deployment_id, organization FROM ${n.ltiDeployments} WHERE issuer = $1 AND client_id = $2 ORDER BY seq`,
    deployments: `SELECT issuer, client_id, deployment_id, organization FROM ${n.ltiDeployments} ORDER BY seq`,
    setActive: `UPDATE ${n.ltiRegistrations} SET active = $3 WHERE issuer = $1 AND client_id = $2`,
    // Only under an existing registration: the SELECT yields no row otherwise (and the foreign key backs it).
    putDeployment: `INSERT INTO ${n.ltiDeployments} (issuer, client_id, deployment_id, organization)
      SELECT issuer, client_id, $3, $4 FROM ${n.ltiRegistrations} WHERE issuer = $1 AND client_id = $2
      ON CONFLICT (issuer, client_id, deployment_id) DO UPDATE SET organization = EXCLUDED.organization`,
    delete: `DELETE FROM ${n.ltiRegistrations} WHERE issuer = $1 AND client_id = $2`,
  };
}

export function postgresLti(n: Names, ready: () => Promise<{ pool: PostgresPool }>): OralStoreLti {
  const sql = ltiQueries(n);
  const read = async (key?: [string, string]): Promise<LtiRegistrationRecord[]> => {
    const client = await (await ready()).pool.connect();
    let broken: Error | undefined;
    try {
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
      const registrations = (await client.query(key ? sql.get : sql.list, key ?? [])).rows as LtiRegistrationRow[];
      const deployments = (await client.query(key ? sql.deploymentsOf : sql.deployments, key ?? [])).rows as LtiDeploymentRow[];
      await client.query("COMMIT");
      return toLtiRegistrations(registrations, deployments);
    } catch (error) {
      await client.query("ROLLBACK").catch((e: Error) => { broken = e; });
      throw error;
    } finally {
      client.release(broken);
    }
  };
  const run = async (text: string, values: unknown[]) => (await (await ready()).pool.query(text, values)).rowCount ?? 0;
  return {
    ...postgresLtiCourses(n, ready),
    ...postgresLtiGradebook(n, ready),
    async putLtiRegistration(record) {
      checkLtiRegistration(record);
      const c = ltiRegistrationColumns(record);
      await run(sql.put, [c.issuer, c.clientId, c.authorizationUrl, c.jwksUrl, c.tokenUrl, record.active, record.acceptNewDeployments, c.organization, c.data, c.createdAt, c.createdMs]);
    },
    async getLtiRegistration(issuer, clientId) {
      checkLtiKey(issuer, clientId);
      return (await read([issuer, clientId]))[0];
    },
    listLtiRegistrations: () => read(),
    async setLtiRegistrationActive(issuer, clientId, active) {
      checkLtiKey(issuer, clientId);
      return (await run(sql.setActive, [issuer, clientId, Boolean(active)])) === 1;
    },
    async putLtiDeployment(issuer, clientId, deployment) {
      checkLtiKey(issuer, clientId);
      checkLtiDeployment(deployment);
      return (await run(sql.putDeployment, [issuer, clientId, deployment.id, deployment.organization ?? null])) === 1;
    },
    async deleteLtiRegistration(issuer, clientId) {
      checkLtiKey(issuer, clientId);
      return (await run(sql.delete, [issuer, clientId])) === 1;
    },
  };
}
