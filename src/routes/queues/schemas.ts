import { z } from "@hono/zod-openapi";
import {
  EVERGREEN_MIN_DAYS_DEFAULT,
  EVERGREEN_MIN_DAYS_MAX,
  EVERGREEN_MIN_DAYS_MIN,
  QUEUE_ACCOUNTS_MAX,
  QUEUE_NAME_MAX,
  QUEUE_SLOTS_LIST_MAX,
  QUEUE_SLOTS_MAX,
} from "../../services/queues/queues";
import { REORDER_POSTS_MAX } from "../../services/queues/reorder";
import { isTimeZone } from "../../services/queues/slot-times";
import { ymdHis } from "../openapi";

export const QueueParam = z.object({
  queue: z
    .string()
    .max(64)
    .openapi({ param: { name: "queue", in: "path" }, description: "Queue id (UUID), or `default`." }),
});

const SlotSchema = z
  .object({
    weekday: z.number().int().min(1).max(7).openapi({ description: "ISO weekday: Monday = 1 … Sunday = 7." }),
    time: z
      .string()
      .regex(/^([01]\d|2[0-3]):[0-5]\d$/, "The :attribute field must be a time in the form HH:MM (00:00–23:59).")
      .openapi({ description: "Wall-clock `HH:MM` in the queue's time zone.", example: "09:00" }),
  })
  .openapi("QueueSlot");

export const QueueRequest = z
  .object({
    name: z
      .string()
      .trim()
      .min(1)
      .max(QUEUE_NAME_MAX)
      .openapi({ description: `At most ${QUEUE_NAME_MAX} characters.` }),
    time_zone: z
      .string()
      .max(64)
      .refine(isTimeZone, "The :attribute field must be an IANA time zone name (e.g. Europe/Paris).")
      .openapi({ description: "IANA time zone the slot times are read in.", example: "Europe/Paris" }),
    slots: z
      .array(SlotSchema)
      .max(QUEUE_SLOTS_MAX)
      .openapi({ description: `At most ${QUEUE_SLOTS_MAX} slots.` }),
    social_account_ids: z
      .array(z.uuid())
      .max(QUEUE_ACCOUNTS_MAX)
      .optional()
      .openapi({ description: "Accounts a post added from the dashboard starts with; may be empty." }),
    paused: z.boolean().optional(),
    is_default: z.boolean().optional().openapi({ description: "true makes this the workspace's default queue." }),
    evergreen_label_id: z.uuid().nullable().optional().openapi({
      description:
        "Issue 37, evergreen: a label of this workspace. A slot still empty 24 hours ahead is filled with a copy of that label's published post whose last copy is oldest (docs/queues.md). null turns it off; absent on PUT keeps it.",
    }),
    evergreen_min_days: z
      .number()
      .int()
      .min(EVERGREEN_MIN_DAYS_MIN)
      .max(EVERGREEN_MIN_DAYS_MAX)
      .optional()
      .openapi({
        description: `${EVERGREEN_MIN_DAYS_MIN}–${EVERGREEN_MIN_DAYS_MAX}: days at least between two copies of one post (default ${EVERGREEN_MIN_DAYS_DEFAULT}); absent on PUT keeps it.`,
      }),
  })
  .openapi("QueueRequest");

export const QueueUpdateRequest = QueueRequest.extend({
  reshuffle: z.boolean().optional().openapi({
    description:
      "true: every post queued after now moves onto the new slot times, in time order. Otherwise queued posts keep their times.",
  }),
}).openapi("QueueUpdateRequest");

export const ReservationSchema = z
  .object({
    id: z.uuid().openapi({ description: "Pass as `reservation_id` when creating or scheduling the post." }),
    queue_id: z.uuid(),
    at: ymdHis,
    local: z.string().openapi({ description: "The slot's wall-clock time in the queue's zone, `Y-m-d H:i:s`." }),
    expires_at: ymdHis,
  })
  .openapi("QueueReservation");

export const ReservationParam = QueueParam.extend({
  reservation: z
    .string()
    .max(64)
    .openapi({ param: { name: "reservation", in: "path" }, description: "Reservation id (UUID)." }),
});

export const ReorderRequest = z
  .object({
    post_ids: z
      .array(z.uuid())
      .min(1)
      .max(REORDER_POSTS_MAX)
      .openapi({
        description: `Posts holding upcoming slots of this queue, in their new order (at most ${REORDER_POSTS_MAX}): their slot times, earliest first, go to them in this order.`,
      }),
  })
  .openapi("QueueReorderRequest");

export const QueueSchema = z
  .object({
    id: z.uuid(),
    name: z.string(),
    time_zone: z.string(),
    slots: z.array(SlotSchema),
    social_account_ids: z.array(z.uuid()),
    paused: z.boolean(),
    is_default: z.boolean(),
    evergreen_label_id: z.uuid().nullable(),
    evergreen_min_days: z.number().int(),
    created_at: ymdHis,
    updated_at: ymdHis,
  })
  .openapi("Queue");

export const QueueSlotsQuery = z.object({
  from: z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/, "The :attribute field must be a UTC time in the form Y-m-d H:i:s.")
    .optional()
    .openapi({ description: "UTC `Y-m-d H:i:s`; slots at or after it. Default: now." }),
  count: z.coerce
    .number()
    .int()
    .min(1)
    .max(QUEUE_SLOTS_LIST_MAX)
    .default(20)
    .openapi({ description: `1–${QUEUE_SLOTS_LIST_MAX}, default 20.` }),
});

export const QueueSlotItemSchema = z
  .object({
    at: ymdHis,
    local: z.string().openapi({ description: "The slot's wall-clock time in the queue's zone, `Y-m-d H:i:s`." }),
    post_id: z.uuid().nullable(),
    reservation_id: z.uuid().nullable(),
  })
  .openapi("QueueSlotItem");
