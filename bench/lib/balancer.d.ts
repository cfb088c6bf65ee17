/** A round-robin balancer in front of a fleet's instances (see balancer.js). */
export function startBalancer(instances: { port: number; alive: boolean }[]): Promise<{
  url: string;
  served: { path: string; instance: number }[];
  close(): Promise<void>;
}>;
