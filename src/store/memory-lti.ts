/**
 * The memory store's LTI registrations: one map for every organization (registrations
 * are global), insertion order as the list's order. Copies in and out, as the other tables.
 */
import {
  checkLtiDeployment, checkLtiKey, checkLtiRegistration, ltiRegistrationFields,
  type LtiRegistrationInput, type LtiRegistrationRecord, type OralStoreLti,
} from "./lti-types.js";
import { memoryLtiCourses } from "./memory-lti-courses.js";
import { memoryLtiGradebook } from "./memory-lti-gradebook.js";

interface Entry { registration: LtiRegistrationInput; deployments: Map<string, string | undefined> }

const keyOf = (issuer: string, clientId: string) => `${issuer}\u0000${clientId}`;

function toRecord(entry: Entry): LtiRegistrationRecord {
  return {
    ...ltiRegistrationFields(entry.registration),
    deployments: [...entry.deployments].map(([id, organization]) => (organization === undefined ? { id } : { id, organization })),
  };
}

export function memoryLti(ready: () => Promise<unknown>): OralStoreLti {
  const entries = new Map<string, Entry>();
  return {
    ...memoryLtiCourses(ready),
    ...memoryLtiGradebook(ready),
    async putLtiRegistration(record) {
      checkLtiRegistration(record);
      await ready();
      const key = keyOf(record.issuer, record.clientId);
      const kept = entries.get(key)?.deployments ?? new Map<string, string | undefined>();
      // Latest wins, but a replaced registration keeps its place in the list (as SQL's upsert does).
      entries.set(key, { registration: ltiRegistrationFields(record), deployments: kept });
    },
    async getLtiRegistration(issuer, clientId) {
      checkLtiKey(issuer, clientId);
      await ready();
      const entry = entries.get(keyOf(issuer, clientId));
      return entry && toRecord(entry);
    },
    async listLtiRegistrations() {
      await ready();
      return [...entries.values()].map(toRecord);
    },
    async setLtiRegistrationActive(issuer, clientId, active) {
      checkLtiKey(issuer, clientId);
      await ready();
      const entry = entries.get(keyOf(issuer, clientId));
      if (entry) entry.registration = { ...entry.registration, active: Boolean(active) };
      return entry !== undefined;
    },
    async putLtiDeployment(issuer, clientId, deployment) {
      checkLtiKey(issuer, clientId);
      checkLtiDeployment(deployment);
      await ready();
      const entry = entries.get(keyOf(issuer, clientId));
      entry?.deployments.set(deployment.id, deployment.organization);
      return entry !== undefined;
    },
    async deleteLtiRegistration(issuer, clientId) {
      checkLtiKey(issuer, clientId);
      await ready();
      return entries.delete(keyOf(issuer, clientId));
    },
  };
}
