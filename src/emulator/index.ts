/**
 * The emulator's public face (`express-oral-assessments/emulator`): re-exports only.
 */
export { startEmulator } from "./server.js";
export { FaultSpecError } from "./faults.js";
export type {
  Emulator, EmulatorOptions, EmulatorOrganization, EmulatorOrganizationOptions, EmulatorStateSnapshot, FaultSpec, ReceivedRequest,
} from "./types.js";
