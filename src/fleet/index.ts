/** Fleet mode's public face (the package index picks what integrators get). */
export { redisFleet, fleetReady, type RedisFleet } from "./redis-fleet.js";
export { inProcessFleet, type Fleet } from "./fleet.js";
export type { RedisFleetOptions } from "./options.js";
export type { FleetSecret } from "./secret.js";
