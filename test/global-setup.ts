import { randomBytes } from "node:crypto";

/** Makes this run's canary keys. Test workers inherit them through the environment. */
export default function setup(): void {
  const random = () => randomBytes(18).toString("base64url");
  process.env.CANARY_TEST_KEY = `svc_test_${random()}`;
  process.env.CANARY_LIVE_KEY = `svc_live_${random()}`;
  process.env.CANARY_WRONG_KEY = `svc_test_${random()}`;
}
