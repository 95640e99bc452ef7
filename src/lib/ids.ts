export const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export const newId = (): string => crypto.randomUUID();

/** Path ids must be lowercase UUIDs; anything else is simply "not found". */
export const isUuid = (value: string | undefined | null): value is string => !!value && UUID_RE.test(value);
