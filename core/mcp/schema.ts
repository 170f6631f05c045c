import { z } from "zod";
import { AjvJsonSchemaValidator } from "@modelcontextprotocol/sdk/validation/ajv";

export type JsonObject = Record<string, unknown>;

export type CheckedSchema =
  { ok: true; schema: JsonObject; parameters: z.ZodType<Record<string, unknown>> } | { ok: false; reason: string };

const validators = new AjvJsonSchemaValidator();

/**
 * Checks a server's `inputSchema` before the tool is offered: providers need an object
 * schema, and a schema that does not compile would fail every call. The returned zod type
 * validates arguments with the schema itself, so the registry reports a bad call as it
 * does for built-in tools.
 */
export function checkInputSchema(input: unknown): CheckedSchema {
  if (typeof input !== "object" || input === null || Array.isArray(input))
    return { ok: false, reason: "its inputSchema is not a JSON object" };
  const { $schema: _dialect, ...schema } = input as JsonObject;
  if (schema.type !== "object")
    return {
      ok: false,
      reason: `its inputSchema must have "type": "object" (has ${JSON.stringify(schema.type ?? null)})`,
    };
  let validate: ReturnType<typeof validators.getValidator>;
  try {
    validate = validators.getValidator(schema as never);
  } catch (err) {
    return { ok: false, reason: `its inputSchema is malformed: ${err instanceof Error ? err.message : String(err)}` };
  }
  const parameters = z.record(z.string(), z.unknown()).superRefine((value, ctx) => {
    const result = validate(value);
    if (!result.valid) ctx.addIssue({ code: "custom", message: result.errorMessage });
  });
  return { ok: true, schema, parameters };
}
