import { useState } from "preact/hooks";
import { errorMessage, type Schema } from "../../../sdk/index";
import { api } from "../../api";
import { ConfirmButton, Field, FormErrors, inputValue, SecretOnce, useFormErrors } from "../../components/form";
import { EmptyState, LoadedView } from "../../components/states";
import { preferredTimeZone } from "../../components/time-zone-pref";
import { useApi } from "../../components/use-api";
import { formatApiTime } from "../../lib/time";
import { useSession } from "../../session-context";
import type { SectionProps } from "../settings";

type Role = Schema<"MemberRole">;
type Member = Schema<"Member">;

const ROLES: { value: Role; label: string }[] = [
  { value: "owner", label: "Owner" },
  { value: "admin", label: "Admin" },
  { value: "editor", label: "Editor" },
  { value: "viewer", label: "Viewer" },
];

/** Only an owner makes or removes owners. */
const rolesFor = (mine: string) => ROLES.filter((r) => mine === "owner" || r.value !== "owner");

function MemberRow({
  member,
  myRole,
  canWrite,
  onChanged,
}: {
  member: Member;
  myRole: string;
  canWrite: boolean;
  onChanged: (notice: string) => Promise<void>;
}) {
  const zone = preferredTimeZone();
  const [busy, setBusy] = useState(false);
  const who = member.name || member.email;
  const changeable = canWrite && (myRole === "owner" || member.role !== "owner");
  return (
    <tr>
      <th scope="row">
        {member.name}
        <span class="small muted break member-email">{member.email}</span>
      </th>
      <td>
        {changeable ? (
          <>
            <label class="visually-hidden" for={`role-${member.id}`}>
              Role of {who}
            </label>
            <select
              id={`role-${member.id}`}
              value={member.role}
              disabled={busy}
              onChange={async (e) => {
                const role = inputValue(e) as Role;
                setBusy(true);
                const { error, response } = await api.PATCH("/api/members/{id}", {
                  params: { path: { id: member.id } },
                  body: { role },
                });
                setBusy(false);
                await onChanged(
                  response.ok ? `${who} is now ${role}.` : errorMessage(error, "The role could not be changed."),
                );
              }}
            >
              {rolesFor(myRole).map((r) => (
                <option key={r.value} value={r.value}>
                  {r.label}
                </option>
              ))}
            </select>
          </>
        ) : (
          member.role
        )}
      </td>
      <td>{formatApiTime(member.created_at, zone)}</td>
      {canWrite && (
        <td>
          {changeable && (
            <ConfirmButton
              label="Remove"
              name={who}
              question={`Remove ${who} from this workspace? Their account and other workspaces stay.`}
              confirmLabel="Yes, remove"
              onConfirm={async () => {
                const { error, response } = await api.DELETE("/api/members/{id}", {
                  params: { path: { id: member.id } },
                });
                await onChanged(response.ok ? `${who} removed.` : errorMessage(error, "Not removed."));
              }}
            />
          )}
        </td>
      )}
    </tr>
  );
}

/** Members (role change, removal) and invitations by link (the inviter copies it), pending ones withdrawn. */
export default function MembersSection({ canWrite }: SectionProps) {
  const { membership } = useSession();
  const zone = preferredTimeZone();
  const members = useApi(() => api.GET("/api/members"), [], "The members could not be loaded.");
  const invitations = useApi(() => api.GET("/api/invitations"), [], "The invitations could not be loaded.");
  const [role, setRole] = useState<Role>("editor");
  const [email, setEmail] = useState("");
  const [hours, setHours] = useState("168");
  const [busy, setBusy] = useState(false);
  const [link, setLink] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const { errors, formRef, fail, clear } = useFormErrors();

  async function invite(e: Event) {
    e.preventDefault();
    clear();
    setBusy(true);
    const { data, error } = await api.POST("/api/invitations", {
      body: { role, ...(email.trim() ? { email: email.trim() } : {}), expires_in_hours: Number(hours) },
    });
    setBusy(false);
    if (!data) return fail(error, ["role", "email", "expires_in_hours"], "The invitation could not be created.");
    setLink(data.url);
    setEmail("");
    await invitations.reload();
  }

  const changed = async (message: string) => {
    setNotice(message);
    await Promise.all([members.reload(), invitations.reload()]);
  };

  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      {link && (
        <SecretOnce
          title="Invitation link"
          value={link}
          onDone={() => {
            setLink(null);
            setNotice("Invitation created: send the link to the person you invite.");
          }}
        />
      )}
      {canWrite && !link && (
        <form ref={formRef} onSubmit={invite}>
          <h3>Invite someone</h3>
          <Field path="role" label="Role" error={errors.fields.role}>
            {(a) => (
              <select {...a} value={role} onChange={(e) => setRole(inputValue(e) as Role)}>
                {rolesFor(membership.role).map((r) => (
                  <option key={r.value} value={r.value}>
                    {r.label}
                  </option>
                ))}
              </select>
            )}
          </Field>
          <Field
            path="email"
            label="Email (optional)"
            hint="Only this address can accept the link (and it makes their account). Without one, the link only lets someone who already has an account join."
            error={errors.fields.email}
          >
            {(a) => <input {...a} type="email" value={email} onInput={(e) => setEmail(inputValue(e))} />}
          </Field>
          <Field path="expires_in_hours" label="Link valid for (hours)" error={errors.fields.expires_in_hours}>
            {(a) => (
              <input
                {...a}
                type="number"
                min={1}
                max={720}
                required
                value={hours}
                onInput={(e) => setHours(inputValue(e))}
              />
            )}
          </Field>
          <FormErrors messages={errors.general} />
          <button type="submit" class="button button-primary" disabled={busy}>
            {busy ? "Creating…" : "Create invitation link"}
          </button>
        </form>
      )}
      <p role="status" class="small">
        {notice}
      </p>
      <h3>People</h3>
      <LoadedView value={members.value} onRetry={members.reload}>
        {(data) => (
          <div class="table-wrap">
            <table class="table">
              <caption class="visually-hidden">Members of this workspace</caption>
              <thead>
                <tr>
                  <th scope="col">Name</th>
                  <th scope="col">Role</th>
                  <th scope="col">Member since</th>
                  {canWrite && (
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  )}
                </tr>
              </thead>
              <tbody>
                {data.map((m) => (
                  <MemberRow key={m.id} member={m} myRole={membership.role} canWrite={canWrite} onChanged={changed} />
                ))}
              </tbody>
            </table>
          </div>
        )}
      </LoadedView>
      <h3>Pending invitations</h3>
      <LoadedView
        value={invitations.value}
        onRetry={invitations.reload}
        isEmpty={(data) => data.length === 0}
        empty={
          <EmptyState title="No pending invitations">
            <p>
              {canWrite ? "Create an invitation link above to add someone." : "An owner or admin can invite people."}
            </p>
          </EmptyState>
        }
      >
        {(data) => (
          <ul class="item-list">
            {data.map((inv) => (
              <li key={inv.id} class="item">
                <span class="item-main">
                  <strong>{inv.email ?? "Any existing account with the link"}</strong>
                  <span class="small muted">
                    {inv.role}, expires {formatApiTime(inv.expires_at, zone)}
                  </span>
                </span>
                {canWrite && (
                  <ConfirmButton
                    label="Withdraw"
                    name={`invitation ${inv.email ?? inv.id}`}
                    question="Withdraw this invitation? Its link stops working at once."
                    confirmLabel="Yes, withdraw"
                    onConfirm={async () => {
                      const { error, response } = await api.DELETE("/api/invitations/{id}", {
                        params: { path: { id: inv.id } },
                      });
                      await changed(response.ok ? "Invitation withdrawn." : errorMessage(error, "Not withdrawn."));
                    }}
                  />
                )}
              </li>
            ))}
          </ul>
        )}
      </LoadedView>
    </section>
  );
}
