import type { z } from "@hono/zod-openapi";
import type { Context } from "hono";
import type { WorkspaceContext } from "../../context";
import { AppError, type FieldErrors, validationError } from "../../lib/errors";
import { mergeFieldErrors, validationFailure, wellFormedParts, zodIssuesToFieldErrors } from "../../lib/validation";
import type { AppEnv } from "../../types";

/**
 * The validation hook of `POST` and `PUT /api/posts`: one round of validation (docs/limits.md). When the JSON body
 * has shape errors, the checks that read the database still run on the parts that are well formed (`referenceErrors`
 * gets them, with the names of the fields that failed), and one 422 lists both. Other request parts (path, headers)
 * fail as everywhere else.
 */
export function oneRoundValidation(
  schema: z.ZodObject,
  referenceErrors: (
    ctx: WorkspaceContext,
    c: Context<AppEnv>,
    parts: Record<string, unknown>,
    malformed: ReadonlySet<string>,
  ) => Promise<FieldErrors>,
) {
  return async (result: { success: boolean; target: string }, c: Context<AppEnv>) => {
    if (result.success) return;
    const r = result as unknown as { target: string; error: { issues: z.core.$ZodIssue[] }; data: unknown };
    if (r.target !== "json") throw validationFailure(r.target, r.error.issues, r.data);
    const shape = zodIssuesToFieldErrors(r.error.issues, r.data);
    const { parts, malformed } = wellFormedParts(schema, r.data);
    let references: FieldErrors = {};
    try {
      references = await referenceErrors(c.get("workspace"), c, parts, malformed);
    } catch (err) {
      // The post is gone, published or publishing: the shape errors are the answer, as before this hook.
      if (!(err instanceof AppError)) throw err;
    }
    throw validationError(mergeFieldErrors(shape, references));
  };
}
