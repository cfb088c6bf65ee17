/**
 * Running a command in a test and, when it fails, throwing an error that carries its whole
 * output, so the test log shows why (the packed-tarball test installs, compiles and runs
 * consumers this way).
 */
import { execFile, execFileSync } from "node:child_process";
import { promisify } from "node:util";

function failed(file: string, args: string[], error: unknown): Error {
  const { stdout, stderr } = error as { stdout?: string; stderr?: string };
  return new Error(`${file} ${args.join(" ")} failed:\n${stdout ?? ""}\n${stderr ?? ""}`);
}

/** Runs `file` in `cwd` and answers its stdout. */
export function runTool(file: string, args: string[], cwd: string, timeout = 120_000): string {
  try {
    return execFileSync(file, args, { cwd, encoding: "utf8", stdio: "pipe", timeout });
  } catch (error) {
    throw failed(file, args, error);
  }
}

/** `runTool` without blocking the event loop, so that an install can wait while other steps run. */
export async function runToolAsync(file: string, args: string[], cwd: string, timeout = 120_000): Promise<string> {
  try {
    return (await promisify(execFile)(file, args, { cwd, encoding: "utf8", timeout })).stdout;
  } catch (error) {
    throw failed(file, args, error);
  }
}
