import { spawn } from "node:child_process";
import { stat } from "node:fs/promises";
import { StringDecoder } from "node:string_decoder";
import type { ToolUpdate } from "../../protocol";
import { capText } from "../cap";
import { RUN_COMMAND, type RunCommandParams } from "../definitions";
import { scrubEnv } from "../env";
import { ToolError, fsError } from "../errors";
import { displayPath, resolveInsideRoot } from "../sandbox";
import { DEFAULT_MAX_RESULT_CHARS, textOutput, type Tool, type ToolContext } from "../types";
import { HeadTailBuffer } from "./head-tail-buffer";

export interface RunCommandOptions {
  /** Default timeout when the call gives none (120 s). */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL to the process group (2 s). */
  killGraceMs?: number;
  /** How long to wait for output pipes after the shell exits, if background children hold them (1 s). */
  drainMs?: number;
}

interface Outcome {
  code: number | null;
  signal: NodeJS.Signals | null;
  stoppedBy?: "timeout" | "cancel";
  pipesHeld?: boolean;
}

/**
 * run_command for Node: `/bin/sh -c` in its own process group, cwd inside the root,
 * environment scrubbed of secrets, stdin empty. On timeout or cancel the whole group gets
 * SIGTERM, then SIGKILL. stdout and stderr are capped separately so an error at the end of
 * a long build still shows.
 */
export function createRunCommandTool(options: RunCommandOptions = {}): Tool<RunCommandParams> {
  const maxResultChars = DEFAULT_MAX_RESULT_CHARS;
  const defaultTimeout = options.timeoutMs ?? 120_000;
  const grace = options.killGraceMs ?? 2_000;
  const drain = options.drainMs ?? 1_000;
  return {
    ...RUN_COMMAND,
    maxResultChars,
    async preview(args, ctx) {
      const { shownCwd } = await workingDir(args, ctx);
      return { kind: "command", command: args.command, cwd: shownCwd };
    },
    async execute(args, ctx) {
      const { cwd, shownCwd } = await workingDir(args, ctx);
      ctx.signal.throwIfAborted();

      const timeoutMs = args.timeoutSeconds !== undefined ? args.timeoutSeconds * 1000 : defaultTimeout;
      const stdout = new HeadTailBuffer(maxResultChars * 2);
      const stderr = new HeadTailBuffer(maxResultChars * 2);
      const outcome = await runInGroup(args.command, cwd, scrubEnv(ctx.env ?? process.env), {
        timeoutMs,
        grace,
        drain,
        signal: ctx.signal,
        stdout,
        stderr,
        ...(ctx.onUpdate ? { onUpdate: ctx.onUpdate } : {}),
      });

      const status =
        outcome.stoppedBy === "timeout"
          ? `timed out after ${timeoutMs / 1000} s; the command and its child processes were killed`
          : outcome.stoppedBy === "cancel"
            ? "cancelled; the command and its child processes were killed"
            : outcome.signal
              ? `killed by signal ${outcome.signal}`
              : `exit code ${outcome.code}`;
      const half = Math.floor((maxResultChars - 400) / 2);
      const out = capText(stdout.toString(), half);
      const err = capText(stderr.toString(), half);
      const parts = [`$ ${args.command}${shownCwd === "." ? "" : `   (in ${shownCwd})`}`, status];
      if (outcome.pipesHeld)
        parts.push("[background processes still hold the output; output after the shell exited is not shown]");
      const section = (name: string, body: string) => `--- ${name} ---\n${body.replace(/\n$/, "") || "(empty)"}`;
      parts.push(section("stdout", out.text), section("stderr", err.text));
      const failed = outcome.stoppedBy !== undefined || outcome.signal !== null || outcome.code !== 0;
      return {
        ...textOutput(parts.join("\n"), {
          isError: failed,
          truncated: out.truncated || err.truncated || stdout.dropped || stderr.dropped,
        }),
        details: {
          kind: "command",
          command: args.command,
          cwd: shownCwd,
          exitCode: outcome.code,
          signal: outcome.signal,
          ...(outcome.stoppedBy === "timeout" ? { timedOut: true } : {}),
        },
      };
    },
  };
}

async function workingDir(args: RunCommandParams, ctx: ToolContext): Promise<{ cwd: string; shownCwd: string }> {
  const cwd = await resolveInsideRoot(ctx.root, args.cwd, { forWrite: false });
  const shownCwd = displayPath(ctx.root, cwd);
  const info = await stat(cwd).catch((err) => {
    throw fsError(err, shownCwd);
  });
  if (!info.isDirectory()) throw new ToolError(`cwd ${shownCwd} is not a directory`);
  return { cwd, shownCwd };
}

/** Streams a pipe's text to the host's live view, never splitting a UTF-8 character. */
function live(
  stream: "stdout" | "stderr",
  onUpdate: ((update: ToolUpdate) => void) | undefined,
): ((d: Buffer) => void) | undefined {
  if (!onUpdate) return undefined;
  const decoder = new StringDecoder("utf8");
  return (d) => {
    const text = decoder.write(d);
    if (text) onUpdate({ text, stream });
  };
}

function runInGroup(
  command: string,
  cwd: string,
  env: NodeJS.ProcessEnv,
  o: {
    timeoutMs: number;
    grace: number;
    drain: number;
    signal: AbortSignal;
    stdout: HeadTailBuffer;
    stderr: HeadTailBuffer;
    onUpdate?: (update: ToolUpdate) => void;
  },
): Promise<Outcome> {
  return new Promise((resolve, reject) => {
    const windows = process.platform === "win32";
    const child = windows
      ? spawn(command, { cwd, env, shell: true, stdio: ["ignore", "pipe", "pipe"], windowsHide: true })
      : spawn("/bin/sh", ["-c", command], { cwd, env, detached: true, stdio: ["ignore", "pipe", "pipe"] });
    let stoppedBy: Outcome["stoppedBy"];
    let exited: { code: number | null; signal: NodeJS.Signals | null } | undefined;
    const timers: NodeJS.Timeout[] = [];
    let settled = false;

    const killGroup = (sig: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        if (windows) child.kill(sig);
        else process.kill(-child.pid, sig); // negative pid: the whole process group
      } catch {
        /* already gone */
      }
    };
    const stop = (why: "timeout" | "cancel") => {
      if (stoppedBy || settled) return;
      stoppedBy = why;
      killGroup("SIGTERM");
      timers.push(setTimeout(() => killGroup("SIGKILL"), o.grace));
    };
    const finish = (pipesHeld: boolean) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      o.signal.removeEventListener("abort", onAbort);
      if (stoppedBy) killGroup("SIGKILL"); // make sure nothing of a stopped command outlives it
      if (pipesHeld) {
        child.stdout?.destroy();
        child.stderr?.destroy();
      }
      const outcome: Outcome = { code: exited?.code ?? null, signal: exited?.signal ?? null };
      if (stoppedBy) outcome.stoppedBy = stoppedBy;
      if (pipesHeld) outcome.pipesHeld = true;
      resolve(outcome);
    };
    const onAbort = () => stop("cancel");

    const liveOut = live("stdout", o.onUpdate);
    const liveErr = live("stderr", o.onUpdate);
    child.stdout!.on("data", (d: Buffer) => {
      o.stdout.push(d);
      liveOut?.(d);
    });
    child.stderr!.on("data", (d: Buffer) => {
      o.stderr.push(d);
      liveErr?.(d);
    });
    child.on("error", (err) => {
      if (settled) return;
      settled = true;
      for (const t of timers) clearTimeout(t);
      o.signal.removeEventListener("abort", onAbort);
      reject(new ToolError(`could not start the command: ${err.message}`));
    });
    child.on("exit", (code, signal) => {
      exited = { code, signal };
      // Background children may keep the pipes open; do not wait for them forever.
      timers.push(setTimeout(() => finish(true), o.drain));
    });
    child.on("close", () => finish(false));
    timers.push(setTimeout(() => stop("timeout"), o.timeoutMs));
    o.signal.addEventListener("abort", onAbort, { once: true });
  });
}
