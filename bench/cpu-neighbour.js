/**
 * A CPU-bound neighbour for the noisy-neighbour rounds (`--cpu-neighbour`): spins one core
 * in slices of 50 ms (so it still hears IPC) until it is disconnected, as a batch job
 * sharing the machine would. Says `ready` once spinning.
 */
const spin = () => {
  const until = performance.now() + 50;
  while (performance.now() < until);
  setImmediate(spin);
};
process.on("disconnect", () => process.exit(0));
spin();
process.send({ ready: true });
