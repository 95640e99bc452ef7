import { EmptyState } from "../../components/states";
import type { SectionProps } from "../settings";

/** Members and invitations arrive with the people routes (GET/PATCH/DELETE /api/members, /api/invitations). */
export default function MembersSection(_: SectionProps) {
  return (
    <section aria-labelledby="members-heading">
      <h2 id="members-heading">Members</h2>
      <EmptyState title="Members cannot be managed here yet">
        <p>
          This server does not offer the members and invitations routes yet. Until it does, an administrator adds people
          with the admin bootstrap (see the README).
        </p>
      </EmptyState>
    </section>
  );
}
