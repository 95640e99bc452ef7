import type { ServiceContext } from "../../context";
import { linkedInVersionSunsetMessage } from "../../platforms/linkedin/api";

/**
 * LinkedIn answering 426 to the configured `LinkedIn-Version` (issue 35): the publish job notes the version and
 * when, in KV; the deep health check reports it while that version is still configured, so the operator sees
 * "LinkedIn API version X is no longer served; set LINKEDIN_API_VERSION" in the monitor and not only in rows' errors.
 * Setting another version clears the check by itself (the note names the old one); the note also ages out.
 */
const KEY = "health:linkedin-version-sunset";
const TTL_SECONDS = 30 * 86_400;

interface Note {
  version: string;
  at: number;
}

export async function noteLinkedInVersionSunset(ctx: ServiceContext, version: string): Promise<void> {
  const note: Note = { version, at: ctx.now() };
  await ctx.env.METRICS_CACHE.put(KEY, JSON.stringify(note), { expirationTtl: TTL_SECONDS });
}

/** Throws the operator's message when LinkedIn refused the version still configured; resolves otherwise. */
export async function checkLinkedInVersion(ctx: ServiceContext): Promise<void> {
  const note = await ctx.env.METRICS_CACHE.get<Note>(KEY, "json");
  const configured = ctx.config.LINKEDIN_API_VERSION;
  if (note?.version === configured) {
    throw new Error(
      `${linkedInVersionSunsetMessage(configured)} LinkedIn answered 426 at ${new Date(note.at).toISOString()}.`,
    );
  }
}
