import { z } from "@hono/zod-openapi";
import { MEMBER_ROLES } from "../../db/schema/people";
import { PASSWORD_MAX, PASSWORD_MIN } from "../../services/people/auth";
import { INVITATION_TTL_HOURS_MAX } from "../../services/people/invitations";
import { isoDate } from "../openapi";

export const RoleSchema = z.enum(MEMBER_ROLES).openapi("MemberRole", {
  description:
    "owner and admin: everything (members, invitations, API keys, webhooks; only an owner makes or removes owners); editor: posts, media, labels, signatures, social accounts and connect links; viewer: read only.",
});

export const PersonSchema = z
  .object({
    id: z.string().openapi({ example: "0b5c1e9e-8f5e-4a8f-9a4e-0c8f1f2d3e4a" }),
    email: z.string().openapi({ example: "ana@example.com" }),
    name: z.string().openapi({ example: "Ana" }),
  })
  .openapi("Person");

export const MembershipSchema = z
  .object({ workspace_id: z.string(), workspace_name: z.string(), role: RoleSchema })
  .openapi("Membership");

export const SignedInSchema = z
  .object({ user: PersonSchema, memberships: z.array(MembershipSchema) })
  .openapi("SignedIn");

export const MeSchema = z
  .object({
    user: PersonSchema,
    memberships: z.array(MembershipSchema),
    workspace_id: z.string().nullable().openapi({
      description:
        "The workspace this request acts in: `X-Workspace-Id` when given, else the oldest membership; null without any.",
    }),
  })
  .openapi("Me");

export const emailField = z
  .string()
  .trim()
  .toLowerCase()
  .max(254)
  .pipe(z.email("The email field must be a valid email address."))
  .openapi({ example: "ana@example.com" });
export const passwordField = z
  .string()
  .min(PASSWORD_MIN)
  .max(PASSWORD_MAX)
  .openapi({ description: `${PASSWORD_MIN} to ${PASSWORD_MAX} characters.`, example: "correct horse battery" });
export const personNameField = z.string().trim().min(1).max(255).openapi({ example: "Ana" });

export const MemberSchema = z
  .object({
    id: z.string(),
    user_id: z.string(),
    email: z.string(),
    name: z.string(),
    role: RoleSchema,
    created_at: isoDate,
  })
  .openapi("Member");

export const InvitationSchema = z
  .object({
    id: z.string(),
    role: RoleSchema,
    email: z.string().nullable().openapi({
      description:
        "The address it is bound to: only that address accepts it. Null: it only lets an existing account join (it cannot create one).",
    }),
    expires_at: isoDate,
    created_at: isoDate,
  })
  .openapi("Invitation");

export const CreatedInvitationSchema = InvitationSchema.extend({
  url: z.string().openapi({
    description: "The link to hand to the person: `<PUBLIC_URL>/app/invite#<token>`.",
    example: "https://publisher.example.com/app/invite#3q2-7wQ…",
  }),
  token: z.string().openapi({ description: "The invitation's secret, shown this once (also in `url`)." }),
}).openapi("CreatedInvitation");

export const CreateInvitationRequest = z
  .object({
    role: RoleSchema,
    email: emailField.optional(),
    expires_in_hours: z
      .number()
      .int()
      .min(1)
      .max(INVITATION_TTL_HOURS_MAX)
      .optional()
      .openapi({ description: `1 to ${INVITATION_TTL_HOURS_MAX}; default 168 (7 days).` }),
  })
  .openapi("CreateInvitationRequest");

export const InvitationLookupSchema = z
  .object({ workspace_name: z.string(), role: RoleSchema, email: z.string().nullable(), expires_at: isoDate })
  .openapi("InvitationLookup");

export const AcceptInvitationRequest = z
  .object({
    token: z.string().min(1).max(128),
    name: personNameField.optional(),
    email: emailField.optional(),
    password: passwordField.optional(),
  })
  .openapi("AcceptInvitationRequest", {
    description:
      "Signed in: `{token}` joins. Otherwise `{token, name, email, password}` creates the person (only for the address the invitation names) or signs in an existing one with their password, and joins.",
  });
