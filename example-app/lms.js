/**
 * The LMS the example app is a tool of: the package's LMS emulator (`createLmsEmulator()`),
 * started beside the app, with one course (an instructor, Ines, and two students, Sam and
 * Ada: the LMS's own users) and one deployment, which launches for one school. The app's
 * LTI key is made here at every start: the LMS, new at every start too, fetches the key
 * set again. A real app keeps its key in a secret store and registers with the school's
 * real LMS instead (docs/lti.md).
 */
import { generateKeyPairSync, randomUUID } from "node:crypto";
import { createLmsEmulator } from "express-oral-assessments/emulator";

/**
 * @param {object} options
 * @param {string} options.school  the id of the school the LMS's deployment launches for
 * @param {number} [options.port]  the LMS's port. Default 0 (any free port).
 * @returns what createExampleApp's `lms` option takes, and the emulator
 */
export async function startExampleLms({ school, port = 0 }) {
  const lms = await createLmsEmulator({ port });
  const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ format: "pem", type: "pkcs8" }).toString();
  return {
    lms,
    school,
    lti: {
      // A new key, so a new kid: a kid never names two keys.
      keys: [{ kid: `example-${randomUUID().slice(0, 8)}`, privateKey }],
      registrations: [lms.registration([{ id: lms.deploymentId, organization: school }])],
      // The demo's instructors place exams made in the dashboard: the app consents (docs/lti.md "Who may link what").
      canLink: (_claims, { linkedTo }) => linkedTo !== "another-course",
      // The emulator is plain http on localhost: its roster and gradebook URLs get the token in development only.
      allowLoopbackHttp: true,
    },
  };
}
