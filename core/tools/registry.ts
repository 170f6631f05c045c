import { z } from "zod";
import { ToolSpec } from "../protocol";
import { capOutput } from "./cap";
import { SandboxError, ToolError } from "./errors";
import { DEFAULT_MAX_RESULT_CHARS, textOutput, type Tool, type ToolContext, type ToolOutput } from "./types";

export type ParseResult = { ok: true; tool: Tool; args: unknown } | { ok: false; error: string };

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/**
 * The tools offered to the model. Validates arguments with each tool's zod schema,
 * runs it, and caps what it returns. `run()` never throws for a tool's failure: the
 * model gets `{ isError: true }` with a message it can act on.
 */
export class ToolRegistry {
  private readonly tools = new Map<string, Tool>();
  private readonly specCache = new Map<string, ToolSpec>();

  constructor(tools: Iterable<Tool> = []) {
    for (const tool of tools) this.register(tool);
  }

  /** Adds a tool. A second tool of the same name is refused unless `replace` is set (hosts swap implementations). */
  register(tool: Tool, options: { replace?: boolean } = {}): void {
    if (!TOOL_NAME.test(tool.name)) {
      throw new Error(`invalid tool name '${tool.name}': use 1-64 letters, digits, '_' or '-'`);
    }
    if (this.tools.has(tool.name) && !options.replace) {
      throw new Error(`a tool named '${tool.name}' is already registered`);
    }
    this.tools.set(tool.name, tool);
    this.specCache.delete(tool.name);
  }

  unregister(name: string): boolean {
    this.specCache.delete(name);
    return this.tools.delete(name);
  }

  get(name: string): Tool | undefined {
    return this.tools.get(name);
  }

  list(): Tool[] {
    return [...this.tools.values()];
  }

  /** Tool specs for the provider, parameters as JSON Schema (input shape: defaults are optional). */
  specs(): ToolSpec[] {
    return this.list().map((tool) => {
      let spec = this.specCache.get(tool.name);
      if (!spec) {
        const { $schema: _ignored, ...parameters } = (tool.inputJsonSchema ??
          z.toJSONSchema(tool.parameters, { io: "input" })) as Record<string, unknown>;
        spec = { name: tool.name, description: tool.description, parameters };
        this.specCache.set(tool.name, spec);
      }
      return spec;
    });
  }

  /** Validates raw arguments (an object, or a JSON string of one) for the named tool. */
  parse(name: string, rawArgs: unknown): ParseResult {
    const tool = this.tools.get(name);
    if (!tool) {
      const known = [...this.tools.keys()].join(", ") || "none";
      return { ok: false, error: `unknown tool '${name}' (available: ${known})` };
    }
    let raw = rawArgs ?? {};
    if (typeof raw === "string") {
      try {
        raw = raw.trim() === "" ? {} : JSON.parse(raw);
      } catch (err) {
        return { ok: false, error: `arguments for ${name} are not valid JSON: ${(err as Error).message}` };
      }
    }
    const parsed = tool.parameters.safeParse(raw);
    if (!parsed.success) {
      return { ok: false, error: `invalid arguments for ${name}:\n${z.prettifyError(parsed.error)}` };
    }
    return { ok: true, tool, args: parsed.data };
  }

  /** Validate, execute, cap. Tool failures come back as `isError` outputs, never as exceptions. */
  async run(name: string, rawArgs: unknown, ctx: ToolContext): Promise<ToolOutput> {
    const parsed = this.parse(name, rawArgs);
    if (!parsed.ok) return textOutput(parsed.error, { isError: true });
    const { tool, args } = parsed;
    if (ctx.signal.aborted) return textOutput(`${name} was cancelled before it started`, { isError: true });
    let output: ToolOutput;
    try {
      output = await tool.execute(args, ctx);
    } catch (err) {
      return textOutput(describeFailure(name, err), { isError: true });
    }
    return capOutput(output, tool.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS);
  }
}

function describeFailure(name: string, err: unknown): string {
  if (err instanceof SandboxError) return `sandbox: ${err.message}`;
  if (err instanceof ToolError) return err.message;
  if (err instanceof Error && err.name === "AbortError") return `${name} was cancelled`;
  return `${name} failed: ${err instanceof Error ? err.message : String(err)}`;
}
