import { type Config, requireSecret } from "../config";
import { isSealedWithCurrentKey, openJson, type SealingKeys, sealJson } from "./crypto";

/**
 * Every secret the service stores (account credentials, webhook signing secrets, Mastodon app secrets, OAuth states
 * and selections) is sealed the same way (docs/security.md "Encryption at rest"): AES-256-GCM under
 * TOKEN_ENCRYPTION_KEY, `v2.<key id>.…`, with the row it belongs to as additional data, and opened with the
 * current key or any of TOKEN_ENCRYPTION_KEYS_PREVIOUS. The cron re-seals old values (src/services/reseal.ts).
 */

/** Where a sealed value lives: it opens only there. `field` when one row holds several unrelated secrets. */
export interface SealedAt {
  table: string;
  row: string;
  field?: string;
}

/** The AES-GCM additional data: `<table>:<row>` (the format account credentials have always used), `:<field>`. */
export const sealedAt = (at: SealedAt) => `${at.table}:${at.row}${at.field ? `:${at.field}` : ""}`;

/** A sealed value that does not open: under a key no longer configured, or copied from another row. */
export class UnopenableSecretError extends Error {
  override name = "UnopenableSecretError";
  constructor(
    readonly at: SealedAt,
    cause: unknown,
  ) {
    super(
      `The stored secret of ${at.table} ${at.row} cannot be opened: it was sealed under a TOKEN_ENCRYPTION_KEY that is ` +
        `neither the current key nor listed in TOKEN_ENCRYPTION_KEYS_PREVIOUS (${cause instanceof Error ? cause.message : String(cause)}).`,
      { cause },
    );
  }
}

/** TOKEN_ENCRYPTION_KEY seals; it and TOKEN_ENCRYPTION_KEYS_PREVIOUS open. */
export function sealingKeys(config: Config): SealingKeys {
  return { current: requireSecret(config, "TOKEN_ENCRYPTION_KEY"), previous: config.TOKEN_ENCRYPTION_KEYS_PREVIOUS };
}

export function sealSecret(ctx: { config: Config }, at: SealedAt, value: unknown): Promise<string> {
  return sealJson(sealingKeys(ctx.config), sealedAt(at), value);
}

/** Opens a value sealed by `sealSecret` for the same place; throws `UnopenableSecretError` when it does not open. */
export async function openSecret<T>(ctx: { config: Config }, at: SealedAt, sealed: string): Promise<T> {
  const keys = sealingKeys(ctx.config); // a missing key is a configuration error, not an unopenable value
  try {
    return await openJson<T>(keys, sealedAt(at), sealed);
  } catch (err) {
    throw new UnopenableSecretError(at, err);
  }
}

/** Whether a value is legacy (v1) or under a previous key, i.e. worth sealing again. */
export async function needsResealing(ctx: { config: Config }, sealed: string): Promise<boolean> {
  return !(await isSealedWithCurrentKey(sealingKeys(ctx.config), sealed));
}
