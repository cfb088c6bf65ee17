/** One problem found in the options given to a factory, with the way to fix it. */
export interface ConfigurationProblem {
  /** The option at fault, as the integrator wrote it (e.g. `apiKey`, `examHost`). */
  option: string;
  /** What is wrong with it. Never contains a secret: keys are redacted before they get here. */
  message: string;
  /** What to do about it. */
  fix: string;
}

/**
 * Thrown at start-up when options are wrong. It lists every problem at once, so an
 * integrator fixes their configuration in one pass instead of one restart per mistake.
 */
export class ConfigurationError extends Error {
  override readonly name = "ConfigurationError";
  readonly code = "configuration_error";
  readonly problems: readonly ConfigurationProblem[];

  constructor(component: string, problems: ConfigurationProblem[]) {
    const lines = problems.map((p, i) => `  ${i + 1}. ${p.option}: ${p.message} Fix: ${p.fix}`);
    super(`${component} is misconfigured (${problems.length} problem${problems.length === 1 ? "" : "s"}):\n${lines.join("\n")}`);
    this.problems = problems;
  }

  toJSON(): { name: string; code: string; message: string; problems: readonly ConfigurationProblem[] } {
    return { name: this.name, code: this.code, message: this.message, problems: this.problems };
  }
}

/** Collects problems while options are checked; throws once at the end if there were any. */
export class ProblemList {
  private readonly problems: ConfigurationProblem[] = [];

  add(option: string, message: string, fix: string): void {
    this.problems.push({ option, message, fix });
  }

  /** The problems so far (a schema's check turns them into its issues). */
  get all(): readonly ConfigurationProblem[] {
    return this.problems;
  }

  get size(): number {
    return this.problems.length;
  }

  throwIfAny(component: string): void {
    if (this.problems.length > 0) throw new ConfigurationError(component, [...this.problems]);
  }
}
