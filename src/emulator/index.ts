/**
 * The emulator's public face (`express-oral-assessments/emulator`): re-exports only.
 */
export { startEmulator } from "./server.js";
export { FaultSpecError } from "./faults.js";
export type {
  Emulator, EmulatorOptions, EmulatorOrganization, EmulatorOrganizationOptions, EmulatorStateSnapshot, FaultSpec, ReceivedRequest,
} from "./types.js";
export { createLmsEmulator, LMS_FAULTS, LMS_PRESETS, type LmsPreset, type LmsEmulator, type LmsEmulatorOptions, type LmsFault, type LmsUser, type ResourceLink, type DeepLinkingRequestOptions, type DeepLinkReturn } from "./lms/index.js";
